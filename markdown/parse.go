package markdown

// Parse reads one markdown file. path is used only in diagnostics. Parse
// never returns nil and never panics.
func Parse(path string, src []byte) *Document {
	// TODO(helper): implement.
	return &Document{Path: path, Body: string(src), BodyLine: 1}
}
