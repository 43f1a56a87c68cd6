// Command opa-wasm-build is `opa build -t wasm` and `opa capabilities --current` of the pinned OPA,
// and nothing else: the two opa commands the policy bundle's build (policies/build.ts) runs, made
// from OPA's own Go packages with the options `opa build` passes them. It builds from the Go
// module proxy in a fraction of the time the whole opa CLI takes, so `./scripts/demo.sh` can build
// the bundle from the sources on a fresh machine. The test command uses the full opa CLI, and a
// test checks that both produce the same bundle.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/compile"
	"github.com/open-policy-agent/opa/v1/loader"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 2 && args[0] == "capabilities" && args[1] == "--current" {
		bs, err := json.MarshalIndent(ast.CapabilitiesForThisVersion(), "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, string(bs))
		return err
	}
	if len(args) > 0 && args[0] == "build" {
		return build(args[1:])
	}
	return fmt.Errorf("opa-wasm-build implements only `build -t wasm` and `capabilities --current` (the policy bundle's build); for %q install the opa CLI (. scripts/setup.sh)", strings.Join(args, " "))
}

func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	target := fs.String("t", "", "target (wasm only)")
	capsFile := fs.String("capabilities", "", "capabilities file")
	revision := fs.String("r", "", "bundle revision")
	out := fs.String("o", "", "output file")
	var entrypoints, ignore list
	fs.Var(&entrypoints, "e", "entrypoint (repeatable)")
	fs.Var(&ignore, "ignore", "file name pattern to leave out (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *target != "wasm" || *out == "" || len(entrypoints) == 0 || fs.NArg() == 0 {
		return fmt.Errorf("usage: opa-wasm-build build -t wasm -e ENTRYPOINT [--capabilities FILE] [-r REVISION] [--ignore PATTERN]... -o OUT PATH...")
	}
	caps := ast.CapabilitiesForThisVersion()
	if *capsFile != "" {
		c, err := ast.LoadCapabilitiesFile(*capsFile)
		if err != nil {
			return err
		}
		caps = c
	}
	// Written beside the output and renamed on success: a failed build leaves no empty file behind.
	partial := *out + ".partial"
	f, err := os.Create(partial)
	if err != nil {
		return err
	}
	defer os.Remove(partial)
	defer f.Close()
	// What `opa build` does without --bundle: skip .tar.gz files and the --ignore names.
	filter := func(abspath string, info os.FileInfo, depth int) bool {
		if !info.IsDir() && strings.HasSuffix(abspath, ".tar.gz") {
			return true
		}
		for _, p := range ignore {
			if loader.GlobExcludeName(p, 1)(abspath, info, depth) {
				return true
			}
		}
		return false
	}
	c := compile.New().
		WithCapabilities(caps).
		WithTarget(compile.TargetWasm).
		WithOutput(f).
		WithEntrypoints(entrypoints...).
		WithRegoAnnotationEntrypoints(true).
		WithPaths(fs.Args()...).
		WithFilter(filter).
		WithPartialNamespace("partial").
		WithRegoVersion(ast.RegoV1).
		WithRevision(*revision)
	if err := c.Build(context.Background()); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(partial, *out)
}
