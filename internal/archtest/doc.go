// Package archtest keeps recite's import direction: its test reads the
// module's import graph with `go list -deps -json` and fails on every import
// outside the arrows of docs/architecture.md#import-rules, naming the
// importing package and the import. Its docs test keeps code comments pointing
// at the repository's own docs: every `docs/<file>.md#<anchor>` citation must
// name a file and a heading that exist, and no file may cite the design
// documents kept outside the repository (docs/architecture.md#import-rules).
//
// The package has no code of its own and imports no project package; the
// rules are a table in arch_test.go (package pattern → the project packages
// it may import; third-party module → the packages that may import it).
package archtest
