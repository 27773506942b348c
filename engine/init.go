package engine

import (
	"github.com/recite-dev/recite/engine/scaffold"
)

// InitResult lists what Init created or changed, project-relative
// (scaffold.Result).
type InitResult = scaffold.Result

// Init scaffolds recite in the project at dir (scaffold.Init): recite.yaml
// for the flavor (gsd or fire; "" detects it), the prompts' .gitignore,
// the merge=union line of .gitattributes, a default .powerignore and the
// schema copy; it never overwrites a file that exists. Errors: an unknown
// flavor (*InputError), a file that cannot be written.
func Init(dir, flavor string) (*InitResult, error) { return scaffold.Init(dir, flavor) }
