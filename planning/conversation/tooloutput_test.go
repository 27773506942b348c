package conversation

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// TestToolOutputShapes: the result shapes Claude Code records. The Bash,
// Read, Grep, Glob, WebFetch, Task, TaskCreate, TaskUpdate, Write, Edit,
// MCP and error-string values are cut from the transcripts in
// ../shared/transcripts (long values shortened); TaskOutput's and
// BashOutput's are Claude Code's documented shapes (task.output,
// task.status; status and exitCode beside stdout/stderr).
func TestToolOutputShapes(t *testing.T) {
	tests := []struct {
		name, raw, text string
		failed          bool
	}{
		{"null", `null`, "", false},
		{"absent", ``, "", false},
		{"bash", `{"stdout":"[lint] $ golangci-lint run ./...\n0 issues.","stderr":"","interrupted":false,"isImage":false}`, "[lint] $ golangci-lint run ./...\n0 issues.", false},
		{"bash stdout and stderr", `{"stdout":"built","stderr":"warning: x","interrupted":false,"isImage":false,"noOutputExpected":false}`, "built\nwarning: x", false},
		{"bash no match", `{"stdout":"","stderr":"","interrupted":false,"isImage":false,"returnCodeInterpretation":"No matches found"}`, "", false},
		{"error string", `"Error: Exit code 3\nError: unknown flag: --disable-all\nThe command is terminated due to an error: unknown flag: --disable-all"`,
			"Error: Exit code 3\nError: unknown flag: --disable-all\nThe command is terminated due to an error: unknown flag: --disable-all", true},
		{"rejected", `"User rejected tool use"`, "User rejected tool use", true},
		{"sibling", `"Sibling tool call errored"`, "Sibling tool call errored", true},
		{"read", `{"type":"text","file":{"filePath":"/x/tsconfig.json","content":"{\n  \"compilerOptions\": {}\n}","numLines":3,"startLine":1,"totalLines":3}}`, "{\n  \"compilerOptions\": {}\n}", false},
		{"grep content", `{"mode":"content","numFiles":0,"filenames":[],"content":"packages/cli/src/plugins.ts:113:export interface ChxPluginCommandContext {","numLines":1}`,
			"packages/cli/src/plugins.ts:113:export interface ChxPluginCommandContext {", false},
		{"grep files", `{"mode":"files_with_matches","filenames":["cmd/entire/cli/logging/logger.go"],"numFiles":1}`, "cmd/entire/cli/logging/logger.go", false},
		{"glob none", `{"filenames":[],"durationMs":12,"numFiles":0,"truncated":false}`, "No files found", false},
		{"webfetch", `{"bytes":5120,"code":200,"codeText":"OK","result":"# SA5011 - Possible nil pointer dereference","durationMs":900,"url":"https://staticcheck.dev/docs/checks/"}`,
			"# SA5011 - Possible nil pointer dereference", false},
		{"webfetch 404", `{"bytes":9,"code":404,"codeText":"Not Found","result":"not found","durationMs":90,"url":"https://x.dev/y"}`, "not found", true},
		{"mcp blocks", `[{"type":"text","text":"{\"id\":\"d629e19c\",\"identifier\":\"ENT-228\"}"}]`, `{"id":"d629e19c","identifier":"ENT-228"}`, false},
		{"task agent", `{"status":"completed","prompt":"Analyze","agentId":"a1","content":[{"type":"text","text":"Here is the analysis."}],"totalDurationMs":1,"totalTokens":2,"totalToolUseCount":3,"usage":{}}`,
			"Here is the analysis.", false},
		{"task create", `{"task":{"id":"1","subject":"Add new types to plugins.ts"}}`, `{"task":{"id":"1","subject":"Add new types to plugins.ts"}}`, false},
		{"task update", `{"success":true,"taskId":"1","updatedFields":["status"],"statusChange":{"from":"pending","to":"in_progress"}}`,
			`{"success":true,"taskId":"1","updatedFields":["status"],"statusChange":{"from":"pending","to":"in_progress"}}`, false},
		{"task update failed", `{"success":false,"taskId":"9"}`, "", true},
		{"write", `{"type":"create","filePath":"/x/src/lib/Q.ts","content":"export class Q {}","structuredPatch":[],"originalFile":null}`, "/x/src/lib/Q.ts", false},
		{"edit", `{"filePath":"/x/a.go","oldString":"a","newString":"b","originalFile":"a","structuredPatch":[],"userModified":false,"replaceAll":false}`, "/x/a.go", false},
		{"task output failed", `{"retrieval_status":"success","task":{"task_id":"b1x2","task_type":"local_bash","status":"failed","description":"Run tests","output":"FAIL\tgithub.com/acme/calc\t0.002s\n","exitCode":1}}`,
			"FAIL\tgithub.com/acme/calc\t0.002s\n", true},
		{"task output running", `{"retrieval_status":"not_ready","task":{"task_id":"b1x2","task_type":"local_bash","status":"running","description":"Run tests","output":"=== RUN   TestA"}}`,
			"=== RUN   TestA", false},
		{"task output text", `"<retrieval_status>success</retrieval_status>\n\n<task_id>b1x2</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>2</exit_code>\n\n<output>\nsrc/a.ts(1,2): error TS2322: x\n</output>"`,
			"src/a.ts(1,2): error TS2322: x", true},
		{"bash output failed", `{"shellId":"bash_1","command":"npm test","status":"failed","exitCode":1,"stdout":"Tests: 1 failed","stderr":"","stdoutLines":1,"stderrLines":0,"timestamp":"2025-08-01T10:00:00Z"}`,
			"Tests: 1 failed", true},
		{"unknown object", `{"foo":1}`, `{"foo":1}`, false},
		{"number", `42`, `42`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, failed := ToolOutput(json.RawMessage(tt.raw))
			if text != tt.text || failed != tt.failed {
				t.Errorf("ToolOutput = %q, %v; want %q, %v", text, failed, tt.text, tt.failed)
			}
		})
	}
}

// TestToolOutputRealTranscripts runs ToolOutput over every toolUseResult
// of the shared transcripts: a Bash result's text is what the model was
// shown (the tool_result content), and a result is failed exactly when
// Claude Code flagged the block is_error.
func TestToolOutputRealTranscripts(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "transcripts")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Skip("no transcripts in ../shared/transcripts")
	}
	seen := 0
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			var e struct {
				ToolUseResult json.RawMessage `json:"toolUseResult"`
				Message       *struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil || len(e.ToolUseResult) == 0 || e.Message == nil {
				continue
			}
			var blocks []ccBlock
			if json.Unmarshal(e.Message.Content, &blocks) != nil || len(blocks) != 1 || blocks[0].Type != "tool_result" {
				continue
			}
			seen++
			text, failed := ToolOutput(e.ToolUseResult)
			if failed != blocks[0].IsError {
				t.Errorf("%s:%d: failed %v, is_error %v (%.80s)", filepath.Base(path), n, failed, blocks[0].IsError, e.ToolUseResult)
			}
			if strings.HasPrefix(string(e.ToolUseResult), `{"stdout"`) && text != toolResultText(blocks[0].Content) {
				t.Errorf("%s:%d: Bash text %.80q, content %.80q", filepath.Base(path), n, text, toolResultText(blocks[0].Content))
			}
		}
		_ = f.Close()
	}
	if seen < 400 {
		t.Errorf("only %d tool results with a toolUseResult; the transcripts hold over 400", seen)
	}
}

func TestParseTaskNotification(t *testing.T) {
	tests := []struct {
		name, text string
		ok         bool
		want       TaskNotification
		subject    string
	}{
		// As Claude Code 2.x delivers a failed background command
		// (published session logs).
		{"failed command", "<task-notification>\n<task-id>b8d2377</task-id>\n<output-file>/private/tmp/claude-501/-Users-dev-repos-app/tasks/b8d2377.output</output-file>\n<status>failed</status>\n<summary>Background command \"Push to remote\" failed with exit code 1</summary>\n</task-notification>\nRead the output file to retrieve the result: /private/tmp/claude-501/-Users-dev-repos-app/tasks/b8d2377.output",
			true, TaskNotification{TaskID: "b8d2377", OutputFile: "/private/tmp/claude-501/-Users-dev-repos-app/tasks/b8d2377.output", Status: "failed", Summary: `Background command "Push to remote" failed with exit code 1`}, "Push to remote"},
		{"with tool use id and entities", "<task-notification>\n<task-id>bg-1</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n<status>failed</status>\n<summary>Background command failed &amp; stopped</summary>\n<result>Stack trace &amp; failed assertion</result>\n</task-notification>",
			true, TaskNotification{TaskID: "bg-1", ToolUseID: "toolu_bg", Status: "failed", Summary: "Background command failed & stopped", Result: "Stack trace & failed assertion"}, ""},
		{"completed agent", "<task-notification>\n<task-id>t1</task-id>\n<status>completed</status>\n<summary>Agent \"a quick errand\" completed</summary>\n</task-notification>",
			true, TaskNotification{TaskID: "t1", Status: "completed", Summary: `Agent "a quick errand" completed`}, "a quick errand"},
		{"none", "just a prompt", false, TaskNotification{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := ParseTaskNotification(tt.text)
			if ok != tt.ok || n != tt.want || n.Subject() != tt.subject {
				t.Errorf("got %+v %v subject %q; want %+v %v %q", n, ok, n.Subject(), tt.want, tt.ok, tt.subject)
			}
			if n.Failed() != (tt.want.Status == "failed") {
				t.Errorf("Failed() = %v", n.Failed())
			}
		})
	}
}

func TestCallCommand(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{"Bash", `{"command":"npx tsc","description":"Type check"}`, "npx tsc"},
		{"Bash", `{"command":"git commit -m \"$(cat <<'EOF'\nfix: x\nEOF\n)\""}`, "git commit -m \"$(cat <<'EOF'\nfix: x\nEOF\n)\""},
		{"Read", `{"file_path":"/x/.golangci.yml"}`, "Read /x/.golangci.yml"},
		{"Edit", `{"file_path":"/x/a.go","old_string":"a","new_string":"b"}`, "Edit /x/a.go"},
		{"Grep", `{"pattern":"nolint:staticcheck","path":"cmd"}`, "Grep nolint:staticcheck in cmd"},
		{"Glob", `{"pattern":"**/*.js"}`, "Glob **/*.js"},
		{"WebFetch", `{"url":"https://staticcheck.dev/docs/checks/","prompt":"SA5011"}`, "WebFetch https://staticcheck.dev/docs/checks/"},
		{"TaskOutput", `{"task_id":"b1x2","block":true}`, "TaskOutput b1x2"},
		{"Task", `{"description":"Explore CLI codebase structure","prompt":"…"}`, "Task Explore CLI codebase structure"},
		{"mcp__linear-server__create_issue", `{"title":"GetCheckpointAuthor returns wrong author","team":"Entire"}`, "mcp__linear-server__create_issue GetCheckpointAuthor returns wrong author"},
		{"TodoWrite", `{"todos":[]}`, "TodoWrite"},
		{"Bash", `not json`, "Bash"},
		{"exec_command", `{"command":"cargo test","cwd":"/w"}`, "cargo test"},
		{"shell", `{"command":"go build ./..."}`, "go build ./..."},
		{"shell", `{"command":"  "}`, "shell"},
		{"Write", `{"file_path":"` + strings.Repeat("a", 250) + `"}`, "Write " + strings.Repeat("a", 200) + "…"},
	}
	for _, tt := range tests {
		if got := CallCommand(tt.name, tt.args); got != tt.want {
			t.Errorf("CallCommand(%s, %.40s) = %q, want %q", tt.name, tt.args, got, tt.want)
		}
	}
	recs := []Record{{ToolCalls: []ToolCall{{ID: "t1", Name: "Bash", Arguments: `{"command":"go test ./..."}`}, {ID: "", Name: "Read"}}}, {Role: RoleTool, ToolCallID: "t1"}}
	if got := CallCommands(recs); len(got) != 1 || got["t1"] != "go test ./..." {
		t.Errorf("CallCommands = %v", got)
	}
}

func FuzzToolOutput(f *testing.F) {
	for _, s := range []string{`null`, `"Error: x"`, `{"stdout":"a","stderr":"b"}`, `{"task":{"status":"failed","output":"x","exitCode":2}}`,
		`[{"type":"text","text":"t"}]`, `{"file":{"content":"c"}}`, `"<retrieval_status>x</retrieval_status><status>failed"`, `{"filePath":"p","content":"c","structuredPatch":[]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		text, failed := ToolOutput(json.RawMessage(raw))
		again, failedAgain := ToolOutput(json.RawMessage(raw))
		if text != again || failed != failedAgain {
			t.Fatal("ToolOutput is not deterministic")
		}
		if strings.TrimSpace(raw) == "" && (text != "" || failed) {
			t.Fatalf("empty input gave %q %v", text, failed)
		}
	})
}

func FuzzParseTaskNotification(f *testing.F) {
	f.Add("<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n<summary>Background command \"x\" failed with exit code 1</summary>\n</task-notification>")
	f.Add("<task-notification><status>")
	f.Fuzz(func(t *testing.T, text string) {
		n, ok := ParseTaskNotification(text)
		if !ok && n != (TaskNotification{}) {
			t.Fatalf("no notification but fields %+v", n)
		}
		if ok != strings.Contains(text, "<task-notification>") {
			t.Fatalf("ok %v for %q", ok, text)
		}
		_ = n.Subject()
	})
}
