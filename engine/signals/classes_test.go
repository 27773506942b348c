package signals

import (
	"slices"
	"testing"
)

// TestSignalClasses runs each class of signal of docs/signals.md end to
// end through Extract: errors toolchains print in output that exited 0,
// the agent's blocked and still-failing statements, errors a user pastes
// and the noise left out. Each class has the shape that motivated it
// (written from the shapes of real sessions: a certbot run, a restart
// checked with `systemctl status | head`, a `kubectl get pods`, a query
// through ssh) and a counter-example of the same tool that must give
// nothing.
func TestSignalClasses(t *testing.T) {
	bash := func(cmd, out string, failed bool) Message {
		return Message{ID: "m", Role: "tool", ToolName: "Bash", Command: cmd, Content: out, IsError: failed}
	}
	user := func(text string) Message { return Message{ID: "u", Role: "user", Content: text} }
	agent := func(text string) Message { return Message{ID: "a", Role: "assistant", Content: text} }
	tests := []struct {
		name string
		msg  Message
		keys []string // the signals' key lines (or texts), in order; nil for none
	}{
		{"nginx through certbot, exit 0", bash("sudo certbot --nginx -d app.example.com 2>&1 | tail -8",
			"Deploying certificate\nError while running nginx -c /etc/nginx/nginx.conf -t.\n\nnginx: [emerg] cannot load certificate \"/etc/letsencrypt/live/app.example.com/fullchain.pem\": BIO_new_file() failed (SSL: error:80000002:system library::No such file or directory)\nnginx: configuration file /etc/nginx/nginx.conf test failed", false),
			[]string{"nginx: [emerg] cannot load certificate \"/etc/letsencrypt/live/app.example.com/fullchain.pem\": BIO_new_file() failed (SSL: error:80000002:system library::No such file or directory)"}},
		{"nginx -t passing", bash("sudo nginx -t 2>&1", "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful", false), nil},
		{"systemd restart checked with status | head", bash("sudo systemctl restart app; systemctl status app --no-pager | head -20",
			"Job for app.service failed because the control process exited with error code.\nSee \"systemctl status app.service\" and \"journalctl -xeu app.service\" for details.\n× app.service - App server\n     Loaded: loaded (/etc/systemd/system/app.service; enabled; preset: enabled)\n     Active: failed (Result: exit-code) since Tue 2026-02-03 10:00:02 UTC; 5ms ago\n    Process: 4120 ExecStart=/srv/app/bin/server (code=exited, status=1/FAILURE)\nFeb 03 10:00:02 web1 server[4120]: Error: listen EADDRINUSE: address already in use :::3000",
			false), []string{"Error: listen EADDRINUSE: address already in use :::3000"}},
		{"systemd status healthy", bash("systemctl status nginx | head -20",
			"● nginx.service - A high performance web server and a reverse proxy server\n     Loaded: loaded (/lib/systemd/system/nginx.service; enabled; preset: enabled)\n     Active: active (running) since Tue 2026-02-03 09:00:00 UTC; 1h ago\n   Main PID: 811 (nginx)", false), nil},
		{"docker compose up, exit 0 through tail", bash("docker compose up -d 2>&1 | tail -3",
			" Container app-db-1  Started\nError response from daemon: driver failed programming external connectivity on endpoint app-web-1: Bind for 0.0.0.0:8080 failed: port is already allocated", false),
			[]string{"Error response from daemon: driver failed programming external connectivity on endpoint app-web-1: Bind for 0.0.0.0:8080 failed: port is already allocated"}},
		{"docker compose up, healthy", bash("docker compose up -d 2>&1 | tail -3", " Container app-db-1  Started\n Container app-web-1  Started", false), nil},
		{"kubectl get pods, crashing", bash("kubectl get pods -n prod",
			"NAME                   READY   STATUS             RESTARTS      AGE\napi-7d9f8b6c5d-x2kqp   0/1     CrashLoopBackOff   5 (30s ago)   4m12s", false), []string{"api-7d9f8b6c5d-x2kqp   0/1     CrashLoopBackOff"}},
		{"kubectl get pods, running", bash("kubectl get pods -n prod",
			"NAME                   READY   STATUS    RESTARTS   AGE\napi-7d9f8b6c5d-x2kqp   1/1     Running   0          4m12s", false), nil},
		{"terraform plan through tail", bash("terraform plan 2>&1 | tail -12",
			"╷\n│ Error: Unsupported argument\n│ \n│   on main.tf line 12, in resource \"aws_instance\" \"web\":\n│   12:   instance_typ = \"t3.micro\"\n│ \n│ An argument named \"instance_typ\" is not expected here.\n╵", false), []string{"Error: Unsupported argument"}},
		{"terraform plan, no changes", bash("terraform plan 2>&1 | tail -3", "No changes. Your infrastructure matches the configuration.", false), nil},
		{"apt", bash("sudo apt-get install -y python3-venvx 2>&1 | tail -3", "Reading package lists...\nBuilding dependency tree...\nE: Unable to locate package python3-venvx", false), []string{"E: Unable to locate package python3-venvx"}},
		{"apt warning", bash("sudo apt-get update 2>&1 | tail -2", "W: Some index files failed to download. They have been ignored, or old ones used instead.\nReading package lists...", false), nil},
		{"psql through ssh", bash(`ssh root@203.0.113.7 'sudo -u postgres psql -d metrics -c "SELECT count(*) FROM measurements"' 2>&1`,
			"ERROR:  relation \"measurements\" does not exist\nLINE 1: SELECT count(*) FROM measurements\n                             ^", false), []string{`ERROR:  relation "measurements" does not exist`}},
		{"psql notice", bash(`psql -d metrics -f migrate.sql`, "psql:migrate.sql:1: NOTICE:  relation \"measurements\" already exists, skipping\nCREATE TABLE", false), nil},
		{"the agent's tasks blocked by another", agent("My UI tasks (#12, #13, #14) are all blocked by #7, so I'll start on the API."),
			[]string{"My UI tasks (#12, #13, #14) are all blocked by #7, so I'll start on the API."}},
		{"the agent says it is still failing", agent("The cache key differs per run, which is why it's still failing."), []string{"The cache key differs per run, which is why it's still failing."}},
		{"the agent plans ahead", agent("Task #7 blocks the UI tasks; if the build is still failing later I'll pin the version."), nil},
		{"an error the user pastes", user("one more thing: we are seeing:\n```\n  Processing checkpoint: f8/10e13fce67\nfatal: Unable to create '/home/dev/app/.git/index.lock': File exists.\n\nAnother git process seems to be running in this repository\n```\nany idea?"),
			[]string{"fatal: Unable to create '/home/dev/app/.git/index.lock': File exists."}},
		{"the user's ! command", user("<bash-input>npm run build</bash-input><bash-stdout></bash-stdout><bash-stderr>Error: Cannot find module 'vite'\nRequire stack:\n- /home/dev/app/build.js</bash-stderr>"), []string{"Error: Cannot find module 'vite'"}},
		{"a prompt about errors", user("Please make the error messages of the CLI name the file; errors: should say which line."), nil},
		{"a slash command's output", user("<local-command-stdout>Error: MCP server \"docs\" failed to start</local-command-stdout>"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys []string
			for _, s := range Extract(nil, []Message{tt.msg}, nil) {
				k := s.KeyLine
				if k == "" {
					k = s.Text
				}
				keys = append(keys, k)
			}
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("signals %q, want %q", keys, tt.keys)
			}
		})
	}
	// A pasted error keeps the user's ! command as its command.
	if s := Extract(nil, []Message{tests[18].msg}, nil); len(s) != 1 || s[0].Command != "npm run build" {
		t.Errorf("pasted ! command: %+v", s)
	}
}
