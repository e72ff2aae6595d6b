package scxml

// What the external tests need of the package's internals.

// BareWrites is bareWrites: the globals an expression may assign, or
// false when it may make or delete others.
func BareWrites(src string) ([]string, bool) { return bareWrites(src) }
