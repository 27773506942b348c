package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

func newInitCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var flavor string
	var asJSON, claude, withMCP bool
	cmd := &cobra.Command{
		Use:   "init [--flavor gsd|fire] [--claude] [--mcp]",
		Short: "Scaffold .planning/recite.yaml, prompts/.gitignore, .gitattributes and .powerignore",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var cres *engine.ClaudeResult
			if claude {
				var err error
				if cres, err = engine.InitClaude(g.dir); err != nil {
					return engineError(err)
				}
			}
			var mres *engine.MCPInitResult
			if withMCP {
				var err error
				if mres, err = engine.InitMCP(g.dir); err != nil {
					return engineError(err)
				}
			}
			res, err := engine.Init(g.dir, flavor)
			if err != nil {
				return engineError(err)
			}
			if asJSON {
				return writeJSON(streams.Out, struct {
					*engine.InitResult
					Claude *engine.ClaudeResult  `json:"claude,omitempty"`
					MCP    *engine.MCPInitResult `json:"mcp,omitempty"`
				}{res, cres, mres})
			}
			for _, p := range res.Created {
				fmt.Fprintf(streams.Out, "created %s\n", p)
			}
			for _, p := range res.Updated {
				fmt.Fprintf(streams.Out, "updated %s\n", p)
			}
			for _, p := range res.Kept {
				fmt.Fprintf(streams.Out, "kept    %s\n", p)
			}
			if cres != nil {
				printClaude(streams.Out, cres)
			}
			if mres != nil {
				printMCP(streams.Out, mres)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&flavor, "flavor", "", "planning layout: gsd or fire (default: detected from .planning/, else gsd)")
	cmd.Flags().BoolVar(&claude, "claude", false, "also merge recite's Claude Code hooks into .claude/settings.json")
	cmd.Flags().BoolVar(&withMCP, "mcp", false, "also add recite's MCP server to .mcp.json (Claude Code) and print the Codex, Cursor and Gemini snippets")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
