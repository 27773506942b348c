package main

import "testing"

func TestConfigCheckFlags(t *testing.T) {
	checkFlags(t, newConfigCheckCmd, func(o *configCheckOptions) { o.io = IOStreams{} }, []flagCase[configCheckOptions]{
		{name: "the project's file", args: []string{"check"}, want: configCheckOptions{dir: "."}},
		{name: "a file and json", args: []string{"-C", "proj", "check", "other.yaml", "--json"},
			want: configCheckOptions{dir: "proj", file: "other.yaml", json: jsonFlag{true}}},
		{name: "two files", args: []string{"check", "a.yaml", "b.yaml"}, wantErr: "accepts at most 1 arg(s), received 2"},
		{name: "unknown flag", args: []string{"check", "--fix"}, wantErr: "unknown flag: --fix"},
	})
}

func TestConfigSchemaFlags(t *testing.T) {
	checkFlags(t, newConfigSchemaCmd, func(o *configSchemaOptions) { o.io = IOStreams{} }, []flagCase[configSchemaOptions]{
		{name: "no arguments", args: []string{"schema"}, want: configSchemaOptions{}},
		{name: "an argument", args: []string{"schema", "x"}, wantErr: `unknown command "x" for "recite schema"`},
	})
}
