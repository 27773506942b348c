package claudecode

// Unexported functions the external tests (package claudecode_test) check
// directly.
var (
	FitOutput                = fitOutput
	Utf16Len                 = utf16Len
	TranscriptCompactSummary = transcriptCompactSummary
)

// Limits and paths of the hook the external tests use.
const (
	HookMaxInput = hookMaxInput
	HookStateDir = hookStateDir
)
