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
	// local, statusline, force and absolute shape the Claude Code
	// settings (engine.ClaudeOptions).
	local, statusline, force, absolute bool
	mcp                                bool // also `.mcp.json` and the other agents' snippets
	json                               jsonFlag
}

func newInitCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "init [--flavor gsd|fire] [--claude [--local] [--statusline [--force]] [--absolute]] [--mcp]",
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
	cmd.Flags().BoolVar(&opts.absolute, "absolute", false, "with --claude: write this recite's absolute path into the commands (for when recite is not on PATH)")
	cmd.Flags().BoolVar(&opts.mcp, "mcp", false, "also add recite's MCP server to .mcp.json (Claude Code) and print the Codex, Cursor and Gemini snippets")
	opts.json.addFlag(cmd, "print JSON")
	return cmd
}

func initRun(_ context.Context, opts *initOptions) error {
	if !opts.claude && (opts.local || opts.statusline || opts.absolute) || opts.force && !opts.statusline {
		return usageError{errors.New("--local, --statusline and --absolute go with --claude, --force with --statusline")}
	}
	var cres *engine.ClaudeResult
	if opts.claude {
		copts, warn, err := claudeOptions(opts)
		if err != nil {
			return err
		}
		if warn != "" {
			fmt.Fprintln(opts.io.ErrOut, warn)
		}
		if cres, err = engine.InitClaude(opts.dir, copts); err != nil {
			return err
		}
	}
	var mres *mcp.InitResult
	if opts.mcp {
		var err error
		if mres, err = mcp.Init(opts.dir); err != nil {
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
	if mres != nil && (mres.Created || mres.Added) {
		commit = append(commit, mres.Path)
	}
	v := struct {
		*engine.InitResult
		Claude  *engine.ClaudeResult `json:"claude,omitempty"`
		MCP     *mcp.InitResult      `json:"mcp,omitempty"`
		Commit  []string             `json:"commit"`
		Ignored []string             `json:"ignored"`
		// Personal are files of this user's own (the local Claude Code
		// settings): not for the team's git.
		Personal []string `json:"personal"`
	}{res, cres, mres, commit, ignoredByGit(), personal}
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

// claudeOptions are the Claude Code settings init writes, and a warning
// when the commands it writes would not find recite: Claude Code runs them
// through the shell, so `recite` must be on PATH
// (https://code.claude.com/docs/en/hooks, "Configuration"). With
// --absolute the commands name this executable (os.Executable) instead.
func claudeOptions(opts *initOptions) (engine.ClaudeOptions, string, error) {
	copts := engine.ClaudeOptions{Local: opts.local, StatusLine: opts.statusline, Force: opts.force}
	exe, exeErr := os.Executable()
	if exeErr == nil {
		exe, exeErr = filepath.Abs(exe)
	}
	if opts.absolute {
		if exeErr != nil {
			return copts, "", fmt.Errorf("--absolute: the path of this recite is unknown: %w", exeErr)
		}
		copts.Program = exe
		return copts, "", nil
	}
	if _, err := exec.LookPath("recite"); err == nil {
		return copts, "", nil
	}
	warn := "warning: recite is not on PATH, so Claude Code cannot run `recite hook claude-code`"
	if exeErr == nil {
		warn += fmt.Sprintf("; add %s to PATH, or run `recite init --claude --absolute` to write %s into the commands", filepath.Dir(exe), exe)
	}
	return copts, warn, nil
}
