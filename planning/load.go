package planning

import "io/fs"

// Load reads the planning tree rooted at fsys (the `.planning/` folder) into
// a Project. It returns an error only when the root itself cannot be read;
// everything else becomes a Diagnostic.
func Load(fsys fs.FS) (*Project, error) {
	// TODO(helper): implement.
	return &Project{Flavor: FlavorNone}, nil
}
