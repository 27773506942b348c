package signals

// The failure-line table's rows for what runs a project rather than builds
// it: web servers and systemd, containers and Kubernetes, databases,
// package managers, remote shells, HTTP clients and cloud CLIs
// (failureRules). These tools print their errors in output that often
// exits 0 (`systemctl status … | head`, `ssh host 'psql …'`, `docker
// logs`, `nginx -t 2>&1 | tail`), so each row names a line that says
// something failed by itself, and each near miss is the healthy line of
// the same tool (docs/signals.md#errors-that-exit-0).

// serviceRules: nginx and systemd.
func serviceRules() []rule {
	return []rule{
		{name: "nginx-emerg", toolchain: "nginx", hint: "nginx: [",
			pattern: `(?:^|: )(?P<key>nginx: \[(?:emerg|alert|crit)\] \S.*)$`,
			example: "Error while running nginx -c /etc/nginx/nginx.conf -t.\n\n" +
				"nginx: [emerg] cannot load certificate \"/etc/letsencrypt/live/example.com/fullchain.pem\": BIO_new_file() failed (SSL: error:80000002:system library::No such file or directory:calling fopen(/etc/letsencrypt/live/example.com/fullchain.pem, r) error:10000080:BIO routines::no such file)\n" +
				"nginx: configuration file /etc/nginx/nginx.conf test failed",
			exampleKey: "nginx: [emerg] cannot load certificate \"/etc/letsencrypt/live/example.com/fullchain.pem\": BIO_new_file() failed (SSL: error:80000002:system library::No such file or directory:calling fopen(/etc/letsencrypt/live/example.com/fullchain.pem, r) error:10000080:BIO routines::no such file)",
			nearMiss:   "nginx: [warn] the \"listen ... http2\" directive is deprecated, use the \"http2\" directive instead in /etc/nginx/sites-enabled/app:3"},
		{name: "nginx-log-error", toolchain: "nginx", hint: "] ",
			pattern:    `^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2} \[(?:emerg|alert|crit|error)\] \d+#\d+: (?:\*\d+ )?(?P<key>\S.*)$`,
			example:    "2026/02/03 10:15:42 [error] 2417#2417: *88 connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.5, server: app.example.com, request: \"GET /api/health HTTP/1.1\", upstream: \"http://127.0.0.1:3000/api/health\", host: \"app.example.com\"",
			exampleKey: "connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.5, server: app.example.com, request: \"GET /api/health HTTP/1.1\", upstream: \"http://127.0.0.1:3000/api/health\", host: \"app.example.com\"",
			nearMiss:   "2026/02/03 10:15:40 [notice] 2416#2416: signal process started"},
		{name: "nginx-test-failed", toolchain: "nginx", hint: "test failed", pattern: `(?:^|: )nginx: configuration file \S+ test failed$`, summary: true,
			example:  "nginx: configuration file /etc/nginx/nginx.conf test failed",
			nearMiss: "nginx: configuration file /etc/nginx/nginx.conf test is successful"},
		{name: "systemd-job-failed", toolchain: "systemd", hint: "Job for ", pattern: `^Job for \S+ failed\b`, summary: true,
			example:  "Job for nginx.service failed because the control process exited with error code.\nSee \"systemctl status nginx.service\" and \"journalctl -xeu nginx.service\" for details.",
			nearMiss: "A stop job is running for nginx.service (3s / 1min 30s)"},
		{name: "systemd-active-failed", toolchain: "systemd", hint: "Active: failed", pattern: `^\s*Active: failed \(Result: `, summary: true,
			example:    "× nginx.service - A high performance web server and a reverse proxy server\n     Loaded: loaded (/lib/systemd/system/nginx.service; enabled; preset: enabled)\n     Active: failed (Result: exit-code) since Mon 2026-02-02 22:40:14 UTC; 33s ago",
			exampleKey: "Active: failed (Result: exit-code) since Mon 2026-02-02 22:40:14 UTC; 33s ago",
			nearMiss:   "     Active: active (running) since Mon 2026-02-02 22:40:14 UTC; 2h 3min ago"},
		{name: "systemd-result", toolchain: "systemd", hint: ": Failed with result", pattern: `\.(?:service|socket|timer|mount|scope): Failed with result '`, summary: true,
			example:    "Feb 02 22:40:14 web1 systemd[1]: nginx.service: Failed with result 'exit-code'.",
			exampleKey: "nginx.service: Failed with result 'exit-code'.",
			nearMiss:   "Feb 02 22:40:14 web1 systemd[1]: nginx.service: Deactivated successfully."},
	}
}

// containerRules: docker, docker compose, kubectl.
func containerRules() []rule {
	return []rule{
		{name: "docker-daemon", toolchain: "docker", hint: "Error response from daemon", pattern: `^(?:docker: )?Error response from daemon: \S`,
			example:  "docker: Error response from daemon: Conflict. The container name \"/web\" is already in use by container \"3f1c2b9a8e7d\". You have to remove (or rename) that container to be able to reuse that name.\nSee 'docker run --help'.",
			nearMiss: "Status: Downloaded newer image for nginx:latest"},
		{name: "docker-no-daemon", toolchain: "docker", hint: "Cannot connect to the Docker daemon", pattern: `^Cannot connect to the Docker daemon at \S+`,
			example:  "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
			nearMiss: "Server: Docker Engine - Community"},
		{name: "docker-build-step", toolchain: "docker", hint: "ERROR", pattern: `^#\d+ (?:\d+\.\d+ )?ERROR: \S`,
			example:    "#12 [build 5/7] RUN npm ci\n#12 4.211 npm ERR! code E404\n#12 ERROR: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1",
			exampleKey: "#12 ERROR: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1",
			nearMiss:   "#12 DONE 14.2s"},
		{name: "compose-service", toolchain: "docker", hint: "didn't complete|is unhealthy|exited with code",
			pattern:  `^(?:service "[\w.-]+" didn't complete successfully|dependency failed to start: container [\w.-]+ is unhealthy|[\w.-]+ exited with code [1-9]\d*$)`,
			example:  "service \"migrate\" didn't complete successfully: exit 1",
			nearMiss: "migrate-1 exited with code 0"},
		{name: "kubectl-server", toolchain: "Kubernetes", hint: "rror from server", pattern: `^(?:error: )?[Ee]rror from server(?: \(\w+\))?: \S`,
			example:  "Error from server (NotFound): deployments.apps \"api\" not found",
			nearMiss: "deployment.apps/api configured"},
		{name: "kubectl-connect", toolchain: "Kubernetes", hint: "to the server", pattern: `^(?:The connection to the server \S+ was refused|Unable to connect to the server: )`,
			example:  "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
			nearMiss: "Kubernetes control plane is running at https://127.0.0.1:6443"},
		{name: "kubectl-invalid", toolchain: "Kubernetes", hint: " is invalid: ", pattern: `^The \w+ "[^"]+" is invalid: \S`,
			example:  "The Deployment \"api\" is invalid: spec.template.spec.containers[0].image: Required value",
			nearMiss: "deployment.apps/api unchanged"},
		{name: "kube-pod-status", toolchain: "Kubernetes", hint: "BackOff|ErrImage|Error|OOMKilled",
			pattern:    `^(?P<key>\S+\s+\d+/\d+\s+(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|CreateContainerConfigError|CreateContainerError|RunContainerError|InvalidImageName|OOMKilled|Error|Init:Error|Init:CrashLoopBackOff))\s`,
			example:    "NAME                   READY   STATUS             RESTARTS      AGE\napi-7d9f8b6c5d-x2kqp   0/1     CrashLoopBackOff   5 (30s ago)   4m12s\nweb-5c8d7f9b4-lm3np    1/1     Running            0             4m12s",
			exampleKey: "api-7d9f8b6c5d-x2kqp   0/1     CrashLoopBackOff",
			nearMiss:   "web-5c8d7f9b4-lm3np    1/1     Running            0             4m12s"},
	}
}

// databaseRules: PostgreSQL (psql and the server log), MySQL, SQLite,
// Redis, ClickHouse.
func databaseRules() []rule {
	return []rule{
		{name: "psql-script", toolchain: "PostgreSQL", hint: "psql:", pattern: `^psql:\S+:\d+: (?:ERROR|FATAL):\s+\S`,
			example:  "psql:/tmp/migrate.sql:12: ERROR:  column \"user_id\" does not exist\nLINE 1: SELECT user_id FROM orders;\n               ^",
			nearMiss: "psql:/tmp/seed.sql:3: NOTICE:  relation \"users\" already exists, skipping"},
		{name: "psql-client", toolchain: "PostgreSQL", hint: "psql: ", pattern: `^psql: (?:error|FATAL): \S`,
			example:  "psql: error: connection to server at \"localhost\" (::1), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?",
			nearMiss: "psql (16.2 (Debian 16.2-1.pgdg120+2))"},
		{name: "postgres-error", toolchain: "PostgreSQL", hint: "ERROR:  |FATAL:  |PANIC:  ",
			pattern:    `^(?:\d{4}-\d{2}-\d{2} [\d:.]+ \w+ \[\d+\] (?:\S+ )?)?(?P<key>(?:ERROR|FATAL|PANIC):  \S.*)$`,
			example:    "ERROR:  relation \"measurements\" does not exist\nLINE 1: SELECT count(*) FROM measurements;\n                             ^",
			exampleKey: "ERROR:  relation \"measurements\" does not exist",
			nearMiss:   "NOTICE:  table \"measurements\" does not exist, skipping"},
		{name: "mysql-error", toolchain: "MySQL", hint: "ERROR ", pattern: `^ERROR \d{4} \(\w{5}\)(?: at line \d+)?: \S`,
			example:  "ERROR 1146 (42S02) at line 1: Table 'shop.orders' doesn't exist",
			nearMiss: "mysql: [Warning] Using a password on the command line interface can be insecure."},
		{name: "sqlite-error", toolchain: "SQLite", hint: " error", pattern: `^(?:Parse|Runtime) error(?: near line \d+)?: \S`,
			example:  "Parse error near line 3: no such table: users",
			nearMiss: "SQLite version 3.45.1 2024-01-30 16:01:20"},
		{name: "redis-error", toolchain: "Redis", hint: "(error) ", pattern: `^\(error\) \S`,
			example:  "(error) WRONGTYPE Operation against a key holding the wrong kind of value",
			nearMiss: "(integer) 0"},
		{name: "clickhouse-exception", toolchain: "ClickHouse", hint: "DB::Exception: ", pattern: `^Code: \d+\. DB::Exception: \S`,
			example:    "Received exception from server (version 24.1.2):\nCode: 60. DB::Exception: Table default.events does not exist. (UNKNOWN_TABLE)",
			exampleKey: "Code: 60. DB::Exception: Table default.events does not exist. (UNKNOWN_TABLE)",
			nearMiss:   "Query id: 5f2c1e9a-7b3d-4c8e-9a1f-2b6d8e4c0a17"},
	}
}

// packageRules: apt and dpkg, pip, and the package managers whose errors
// the generic markers cover (brew's `Error:`, uv's and cargo's `error:`,
// gem's `ERROR:`) keep their rows there.
func packageRules() []rule {
	return []rule{
		{name: "apt-error", toolchain: "apt", hint: "E: ", pattern: `^E: [A-Z]\S*`,
			example:    "Reading package lists...\nBuilding dependency tree...\nE: Unable to locate package python3-venvx",
			exampleKey: "E: Unable to locate package python3-venvx",
			nearMiss:   "W: Some index files failed to download. They have been ignored, or old ones used instead."},
		{name: "dpkg-error", toolchain: "apt", hint: "dpkg: error", pattern: `^dpkg: error\b`,
			example:  "dpkg: error processing package nginx-common (--configure):\n installed nginx-common package post-installation script subprocess returned error exit status 1",
			nearMiss: "dpkg: warning: files list file for package 'libfoo' missing; assuming package has no files currently installed"},
		{name: "pip-error", toolchain: "pip", hint: "ERROR: ", pattern: `^ERROR: (?:Could not|No matching distribution|Cannot install|Failed building|ResolutionImpossible|Invalid requirement|Exception:)`,
			example:  "ERROR: Could not find a version that satisfies the requirement torch==9.9 (from versions: 2.1.0, 2.2.0)\nERROR: No matching distribution found for torch==9.9",
			nearMiss: "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken"},
	}
}

// networkRules: ssh, curl, the AWS CLI and SDKs, terraform.
func networkRules() []rule {
	return []rule{
		{name: "ssh-error", toolchain: "ssh", hint: "ssh: |Host key verification", pattern: `^(?:ssh: (?:connect to host \S+ port \d+: |Could not resolve hostname )|Host key verification failed\.$)`,
			example:  "ssh: connect to host 203.0.113.10 port 22: Connection timed out",
			nearMiss: "Warning: Permanently added '203.0.113.10' (ED25519) to the list of known hosts."},
		{name: "curl-error", toolchain: "curl", hint: "curl: (", pattern: `^curl: \(\d+\) \S`,
			example:  "curl: (7) Failed to connect to localhost port 3000 after 0 ms: Couldn't connect to server",
			nearMiss: "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current"},
		{name: "aws-error", toolchain: "AWS", hint: "An error occurred (", pattern: `^(?:\S+: )?An error occurred \([\w.]+\) when calling the \w+ operation`,
			example:  "An error occurred (AccessDenied) when calling the PutObject operation: Access Denied",
			nearMiss: "upload: dist/index.html to s3://app-assets/index.html"},
		{name: "aws-validation", toolchain: "AWS", hint: "Parameter validation failed", pattern: `^(?:[\w.]+Error: )?Parameter validation failed:$`, key: keyNext,
			example:    "Parameter validation failed:\nInvalid type for parameter Body, value: 123, type: <class 'int'>, valid types: <class 'bytes'>, <class 'bytearray'>, file-like object",
			exampleKey: "Invalid type for parameter Body, value: 123, type: <class 'int'>, valid types: <class 'bytes'>, <class 'bytearray'>, file-like object",
			nearMiss:   "Parameter validation passed for 3 parameters"},
		{name: "terraform-error", toolchain: "terraform", hint: "Error: ", pattern: `^│ (?P<key>Error: \S.*)$`,
			example:    "╷\n│ Error: Unsupported argument\n│ \n│   on main.tf line 12, in resource \"aws_instance\" \"web\":\n│   12:   instance_typ = \"t3.micro\"\n│ \n│ An argument named \"instance_typ\" is not expected here.\n╵",
			exampleKey: "Error: Unsupported argument",
			nearMiss:   "│ Warning: Argument is deprecated"},
	}
}
