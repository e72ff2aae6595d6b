package cli

// Estimate exposes the progress line's time-left estimate to the tests.
var Estimate = estimate
