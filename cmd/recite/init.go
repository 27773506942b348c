package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/mcp"
)

// initOptions are the inputs of `recite init`.
type initOptions struct {
	io     IOStreams
	dir    string
	flavor string
	claude bool
	// codex and gemini wire recite into Codex CLI and Gemini CLI.
	codex, gemini bool
	// local, statusline and force shape the Claude Code settings
	// (engine.ClaudeOptions); absolute names this recite by its absolute
	// path in every file init writes.
	local, statusline, force, absolute bool
	mcp                                bool // also `.mcp.json` and the other agents' snippets
	json                               jsonFlag
}

func newInitCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "init [--flavor gsd|fire] [--claude [--local] [--statusline [--force]]] [--codex] [--gemini] [--mcp] [--absolute]",
		Short: "Scaffold .planning/recite.yaml, prompts/.gitignore, .gitattributes and .powerignore",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, initRun)
		},
	}
	cmd.Flags().StringVar(&opts.flavor, "flavor", "", "planning layout: gsd or fire (default: detected from .planning/, else gsd)")
	cmd.Flags().BoolVar(&opts.claude, "claude", false, "also merge recite's Claude Code hooks into .claude/settings.json")
	cmd.Flags().BoolVar(&opts.local, "local", false, "with --claude: write the personal .claude/settings.local.json (git-ignored) instead of the team-shared .claude/settings.json")
	cmd.Flags().BoolVar(&opts.statusline, "statusline", false, "with --claude: also install `recite statusline` as Claude Code's status line (a status line of your own is kept unless --force)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "with --statusline: replace a status line that is not recite's")
	cmd.Flags().BoolVar(&opts.codex, "codex", false, "also merge recite's Codex CLI hooks into .codex/hooks.json and its MCP server into .codex/config.toml")
	cmd.Flags().BoolVar(&opts.gemini, "gemini", false, "also merge recite's Gemini CLI hooks and MCP server into .gemini/settings.json")
	cmd.Flags().BoolVar(&opts.absolute, "absolute", false, "write this recite's absolute path into every command init writes (for when recite is not on PATH)")
	cmd.Flags().BoolVar(&opts.mcp, "mcp", false, "also add recite's MCP server to .mcp.json (Claude Code) and print the Codex, Cursor and Gemini snippets")
	opts.json.addFlag(cmd, "print JSON")
	return cmd
}

func initRun(_ context.Context, opts *initOptions) error {
	if !opts.claude && (opts.local || opts.statusline) || opts.force && !opts.statusline {
		return usageError{errors.New("--local and --statusline go with --claude, --force with --statusline")}
	}
	if opts.absolute && !opts.claude && !opts.codex && !opts.gemini && !opts.mcp {
		return usageError{errors.New("--absolute goes with --claude, --codex, --gemini or --mcp")}
	}
	var program string
	if opts.claude || opts.codex || opts.gemini || opts.mcp {
		var warn string
		var err error
		if program, warn, err = reciteProgram(opts); err != nil {
			return err
		}
		if warn != "" {
			fmt.Fprintln(opts.io.ErrOut, warn)
		}
	}
	var cres *engine.ClaudeResult
	if opts.claude {
		var err error
		copts := engine.ClaudeOptions{Local: opts.local, StatusLine: opts.statusline, Force: opts.force, Program: program}
		if cres, err = engine.InitClaude(opts.dir, copts); err != nil {
			return err
		}
	}
	var xres *engine.CodexResult
	if opts.codex {
		var err error
		if xres, err = engine.InitCodex(opts.dir, engine.CodexOptions{Program: program}); err != nil {
			return err
		}
	}
	var gres *engine.GeminiResult
	if opts.gemini {
		var err error
		if gres, err = engine.InitGemini(opts.dir, engine.GeminiOptions{Program: program}); err != nil {
			return err
		}
	}
	var mres *mcp.InitResult
	if opts.mcp {
		var err error
		if mres, err = mcp.Init(opts.dir, mcp.InitOptions{Program: program}); err != nil {
			return err
		}
	}
	res, err := engine.Init(opts.dir, opts.flavor)
	if err != nil {
		return err
	}
	commit := append(append([]string(nil), res.Created...), res.Updated...)
	personal := []string{}
	if cres != nil && (cres.Created || len(cres.Added) > 0 || len(cres.Updated) > 0 || cres.StatusLine == "installed" || cres.StatusLine == "replaced") {
		if opts.local {
			personal = append(personal, cres.Path)
		} else {
			commit = append(commit, cres.Path)
		}
	}
	if mres != nil && (mres.Created || mres.Added || mres.Updated) {
		commit = append(commit, mres.Path)
	}
	if xres != nil {
		if xres.Hooks.Created || len(xres.Hooks.Added) > 0 || len(xres.Hooks.Updated) > 0 {
			commit = append(commit, xres.Hooks.Path)
		}
		if xres.MCP == "added" || xres.MCP == "updated" {
			commit = append(commit, xres.Config)
		}
	}
	if gres != nil && (gres.Hooks.Created || len(gres.Hooks.Added) > 0 || len(gres.Hooks.Updated) > 0 || gres.MCP == "added" || gres.MCP == "updated") {
		commit = append(commit, gres.Hooks.Path)
	}
	v := struct {
		*engine.InitResult
		Claude  *engine.ClaudeResult `json:"claude,omitempty"`
		Codex   *engine.CodexResult  `json:"codex,omitempty"`
		Gemini  *engine.GeminiResult `json:"gemini,omitempty"`
		MCP     *mcp.InitResult      `json:"mcp,omitempty"`
		Commit  []string             `json:"commit"`
		Ignored []string             `json:"ignored"`
		// Personal are files of this user's own (the local Claude Code
		// settings): not for the team's git.
		Personal []string `json:"personal"`
	}{res, cres, xres, gres, mres, commit, ignoredByGit(), personal}
	return opts.json.print(opts.io.Out, v, func(w io.Writer) error {
		for _, p := range res.Created {
			fmt.Fprintf(w, "created %s\n", p)
		}
		for _, p := range res.Updated {
			fmt.Fprintf(w, "updated %s\n", p)
		}
		for _, p := range res.Kept {
			fmt.Fprintf(w, "kept    %s\n", p)
		}
		fmt.Fprintln(w, "hint: `recite config check` lists every problem of .planning/recite.yaml; editors complete its keys from .planning/.recite/recite.schema.json")
		if cres != nil {
			printClaude(w, cres)
		}
		if xres != nil {
			printCodex(w, xres)
		}
		if gres != nil {
			printGemini(w, gres)
		}
		if mres != nil {
			printMCP(w, mres)
		}
		printGitAdvice(w, commit)
		for _, p := range personal {
			fmt.Fprintf(w, "personal, keep out of git: %s (Claude Code git-ignores it; check your .gitignore if you created it by hand)\n", p)
		}
		return nil
	})
}

// ignoredByGit are the folders recite writes whose content stays out of
// git (each holds a .gitignore of "*" that init or the first build
// writes): the prompt files, rebuilt from the planning tree, and recite's
// caches.
func ignoredByGit() []string { return []string{engine.PromptsDir + "/", engine.CacheDir + "/"} }

// printGitAdvice says which of the files init created or changed belong in
// git, and what stays out of it.
func printGitAdvice(w io.Writer, commit []string) {
	fmt.Fprintln(w)
	if len(commit) == 0 {
		fmt.Fprintln(w, "nothing new to commit")
	} else {
		fmt.Fprintf(w, "commit these: git add %s\n", strings.Join(commit, " "))
	}
	fmt.Fprintf(w, "stay out of git (recite rebuilds them): %s\n", strings.Join(ignoredByGit(), " "))
}

// reciteProgram is how the files init writes run recite ("" for
// `recite` on PATH), and a warning when those commands would not find it:
// the agents run them through the shell, so `recite` must be on PATH
// (https://code.claude.com/docs/en/hooks, "Configuration"). With
// --absolute every command names this executable (os.Executable).
func reciteProgram(opts *initOptions) (string, string, error) {
	exe, exeErr := os.Executable()
	if exeErr == nil {
		exe, exeErr = filepath.Abs(exe)
	}
	if opts.absolute {
		if exeErr != nil {
			return "", "", fmt.Errorf("--absolute: the path of this recite is unknown: %w", exeErr)
		}
		return exe, "", nil
	}
	if _, err := exec.LookPath("recite"); err == nil {
		return "", "", nil
	}
	warn := "warning: recite is not on PATH, so the agents cannot run `recite hook` or `recite mcp`"
	if exeErr == nil {
		warn += fmt.Sprintf("; add %s to PATH, or run `recite init --absolute` with the same flags to write %s into the commands", filepath.Dir(exe), exe)
	}
	return "", warn, nil
}

// printCodex reports what `recite init --codex` did, and how Codex comes
// to run it.
func printCodex(w io.Writer, res *engine.CodexResult) {
	h := res.Hooks
	switch {
	case h.Created:
		fmt.Fprintf(w, "created %s (Codex hooks: %s)\n", h.Path, strings.Join(h.Added, ", "))
	case len(h.Added) > 0:
		fmt.Fprintf(w, "updated %s (Codex hooks added: %s)\n", h.Path, strings.Join(h.Added, ", "))
	case len(h.Updated) > 0:
		fmt.Fprintf(w, "updated %s (Codex hooks pointed at this recite: %s)\n", h.Path, strings.Join(h.Updated, ", "))
	default:
		fmt.Fprintf(w, "kept    %s (recite's Codex hooks are there)\n", h.Path)
	}
	switch res.MCP {
	case "added":
		verb := "updated"
		if res.ConfigCreated {
			verb = "created"
		}
		fmt.Fprintf(w, "%s %s (MCP server recite, for Codex)\n", verb, res.Config)
	case "updated":
		fmt.Fprintf(w, "updated %s (MCP server recite pointed at this recite)\n", res.Config)
	case "kept":
		fmt.Fprintf(w, "kept    %s (its [mcp_servers.recite] is yours)\n", res.Config)
	default:
		fmt.Fprintf(w, "kept    %s (it already starts recite's MCP server)\n", res.Config)
	}
	fmt.Fprintf(w, "codex trust: %s\n", engine.CodexTrust)
}

// printGemini reports what `recite init --gemini` did, and how Gemini CLI
// comes to run it.
func printGemini(w io.Writer, res *engine.GeminiResult) {
	h := res.Hooks
	var what []string
	switch {
	case len(h.Added) > 0:
		what = append(what, "hooks added: "+strings.Join(h.Added, ", "))
	case len(h.Updated) > 0:
		what = append(what, "hooks pointed at this recite: "+strings.Join(h.Updated, ", "))
	}
	switch res.MCP {
	case "added", "updated":
		what = append(what, "MCP server recite "+res.MCP)
	case "kept":
		what = append(what, "its mcpServers.recite is yours, kept")
	}
	verb := "updated"
	switch {
	case h.Created:
		verb = "created"
	case len(what) == 0:
		verb, what = "kept   ", []string{"recite's Gemini CLI hooks and MCP server are there"}
	}
	fmt.Fprintf(w, "%s %s (%s)\n", verb, h.Path, strings.Join(what, "; "))
	fmt.Fprintf(w, "gemini trust: %s\n", engine.GeminiTrust)
}
