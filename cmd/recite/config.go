package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// newConfigCmd groups the commands about recite.yaml.
func newConfigCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check .planning/recite.yaml, or print its JSON Schema",
	}
	cmd.AddCommand(newConfigCheckCmd(g, streams, nil), newConfigSchemaCmd(g, streams, nil))
	return cmd
}

// configCheckOptions are the inputs of `recite config check`.
type configCheckOptions struct {
	io  IOStreams
	dir string
	// file is the file to check; "" checks the project's recite.yaml.
	file string
	json jsonFlag
}

func newConfigCheckCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *configCheckOptions) error) *cobra.Command {
	opts := &configCheckOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Check recite.yaml and print every problem with its line",
		Long: `Check .planning/recite.yaml (or FILE) and print every problem it has, one
"FILE:LINE: MESSAGE" line each: unknown keys with the key they most likely
meant, values of the wrong type or out of range with what the key takes and
an example, checks across keys (thresholds in order, unique target names,
each provider's model), and roles that no template provides.

Exit status: 0 when the file is good, or absent (the defaults apply); 1 when
it has a problem; 2 on a usage error or a FILE that does not exist. (Other
commands exit 2 on a bad recite.yaml: for them it is bad input.)`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.file = g.dir, ""
			if len(args) == 1 {
				opts.file = args[0]
			}
			return runWith(cmd.Context(), opts, runF, configCheckRun)
		},
	}
	opts.json.addFlag(cmd, "print the file and its problems as JSON")
	return cmd
}

func configCheckRun(_ context.Context, opts *configCheckOptions) error {
	res, err := engine.New(opts.dir).CheckConfig(opts.file)
	if err != nil {
		return err
	}
	err = opts.json.print(opts.io.Out, res, func(w io.Writer) error {
		for _, p := range res.Problems {
			fmt.Fprintln(w, p)
		}
		switch {
		case !res.Found:
			fmt.Fprintf(w, "no %s: recite uses its defaults\n", res.File)
		case len(res.Problems) == 0:
			fmt.Fprintf(w, "%s: ok\n", res.File)
			printProviders(w, res)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n := len(res.Problems); n > 0 {
		return checkFailed{fmt.Sprintf("%s: %d %s", res.File, n, plural(n, "problem", "problems"))}
	}
	return nil
}

// configSchemaOptions are the inputs of `recite config schema`.
type configSchemaOptions struct {
	io IOStreams
}

func newConfigSchemaCmd(_ *globalOptions, streams IOStreams, runF func(context.Context, *configSchemaOptions) error) *cobra.Command {
	opts := &configSchemaOptions{io: streams}
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of recite.yaml",
		Long: `Print the JSON Schema (draft-07) of recite.yaml: every key with its
description, type, allowed values, bounds and an example. recite keeps a copy
in .planning/.recite/recite.schema.json, which the first line of the
recite.yaml ` + "`recite init`" + ` writes names for editors
("# yaml-language-server: $schema=.recite/recite.schema.json").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWith(cmd.Context(), opts, runF, configSchemaRun)
		},
	}
}

func configSchemaRun(_ context.Context, opts *configSchemaOptions) error {
	_, err := opts.io.Out.Write(engine.ConfigSchema())
	return err
}

// printProviders writes the providers a good recite.yaml can name, from
// the capability table: one line, each with its body shape and cache rule.
func printProviders(w io.Writer, res *engine.ConfigCheck) {
	var parts []string
	for _, p := range res.Providers {
		parts = append(parts, fmt.Sprintf("%s (%s, cache %s)", p.Name, p.Shape, p.Cache))
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "providers: %s\n", strings.Join(parts, ", "))
	}
}
