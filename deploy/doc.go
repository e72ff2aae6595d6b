// Package deploy holds examples of running simctl as shards on existing
// schedulers (a Kubernetes Indexed Job, a CI matrix), and the tests that
// check them offline. simctl starts and coordinates no workers itself.
package deploy
