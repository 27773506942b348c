package main

import (
	"context"
	"fmt"
	"io"
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
	mcp    bool // also `.mcp.json` and the other agents' snippets
	json   jsonFlag
}

func newInitCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "init [--flavor gsd|fire] [--claude] [--mcp]",
		Short: "Scaffold .planning/recite.yaml, prompts/.gitignore, .gitattributes and .powerignore",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, initRun)
		},
	}
	cmd.Flags().StringVar(&opts.flavor, "flavor", "", "planning layout: gsd or fire (default: detected from .planning/, else gsd)")
	cmd.Flags().BoolVar(&opts.claude, "claude", false, "also merge recite's Claude Code hooks into .claude/settings.json")
	cmd.Flags().BoolVar(&opts.mcp, "mcp", false, "also add recite's MCP server to .mcp.json (Claude Code) and print the Codex, Cursor and Gemini snippets")
	opts.json.addFlag(cmd, "print JSON")
	return cmd
}

func initRun(_ context.Context, opts *initOptions) error {
	var cres *engine.ClaudeResult
	if opts.claude {
		var err error
		if cres, err = engine.InitClaude(opts.dir); err != nil {
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
	if cres != nil && (cres.Created || len(cres.Added) > 0) {
		commit = append(commit, cres.Path)
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
	}{res, cres, mres, commit, ignoredByGit()}
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
