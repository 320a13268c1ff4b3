package mutant_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The plan of the mutation runner: the mutants, read from
// testdata/mutants.txt (its header describes the format), and the code that
// turns one into patched copies for go test -overlay.

// here is the package of this file, as killers name it.
const here = "./internal/mutant"

// A killer is one test function of one package, named from the module root.
type killer struct {
	pkg  string // "./internal/pool"
	test string // "TestGenerationNeverWraps"
}

// String names k in reports: the test alone for a killer of this package.
func (k killer) String() string {
	if k.pkg == here {
		return k.test
	}
	return strings.TrimPrefix(k.pkg, "./") + "." + k.test
}

// A mutation is one entry of testdata/mutants.txt.
type mutation struct {
	name    string
	bug     string
	file    string // the production file, slash-separated, from the module root
	from    string // the original lines, each ending in "\n"
	to      string // the lines that replace them
	killers []killer
	mayHang bool // a killer may loop forever: a timeout counts as its kill
	line    int  // where the entry starts in mutants.txt
}

const planFile = "testdata/mutants.txt"

// loadPlan reads and parses testdata/mutants.txt; it checks the format only
// (see check for the rest).
func loadPlan() ([]*mutation, error) {
	f, err := os.Open(planFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var plan []*mutation
	var m *mutation
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", planFile, n, fmt.Sprintf(format, args...))
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line[0] == '-' || line[0] == '+' {
			if m == nil {
				return nil, bad("a changed line before the first mutant")
			}
			if line[0] == '-' {
				if m.to != "" {
					return nil, bad("mutant %s: an original line after a replacement line", m.name)
				}
				m.from += line[1:] + "\n"
			} else {
				m.to += line[1:] + "\n"
			}
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		if key == "mutant" {
			m = &mutation{name: val, line: n}
			plan = append(plan, m)
			continue
		}
		if m == nil {
			return nil, bad("%q before the first mutant", key)
		}
		if m.from != "" {
			return nil, bad("mutant %s: %q after the changed lines (they end the entry)", m.name, key)
		}
		switch key {
		case "bug":
			m.bug = val
		case "file":
			m.file = val
		case "kill":
			pkg, test, ok := strings.Cut(val, " ")
			if !ok || !strings.HasPrefix(pkg, "./") || !strings.HasPrefix(test, "Test") || strings.Contains(test, " ") {
				return nil, bad("mutant %s: want \"kill ./PACKAGE TestName\", got %q", m.name, line)
			}
			m.killers = append(m.killers, killer{pkg, test})
		case "may-hang":
			m.mayHang = true
		default:
			return nil, bad("unknown key %q", key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return plan, nil
}

// moduleRoot is the directory of go.mod: the runner's working directory, and
// what files and killer packages are named from.
func moduleRoot() (string, error) {
	dir, err := filepath.Abs(".")
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = up
	}
}

// occurrences returns where lines (whole lines, each ending in "\n") occur in
// src, overlapping ones included.
func occurrences(src, lines string) []int {
	var at []int
	for i := 0; i <= len(src)-len(lines); i++ {
		if (i == 0 || src[i-1] == '\n') && strings.HasPrefix(src[i:], lines) {
			at = append(at, i)
		}
	}
	return at
}

// patched returns m's file as it is in the module with m applied. It fails
// unless m's original lines occur exactly once, so that an edit of the
// production code cannot silently disarm a mutant (or arm it twice).
func (m *mutation) patched(root string) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.file)))
	if err != nil {
		return "", fmt.Errorf("mutant %s (%s:%d): %v", m.name, planFile, m.line, err)
	}
	at := occurrences(string(src), m.from)
	if len(at) != 1 {
		return "", fmt.Errorf("mutant %s (%s:%d): its original lines occur %d times in %s, want exactly once; "+
			"add lines of context to the entry, or bring its - and + lines up to date with the code\n%s",
			m.name, planFile, m.line, len(at), m.file, m.from)
	}
	return string(src[:at[0]]) + m.to + string(src[at[0]+len(m.from):]), nil
}

// writeOverlay writes m's patched file and the overlay that applies it into
// dir, and returns the overlay's path.
func (m *mutation) writeOverlay(root, dir string) (string, error) {
	src, err := m.patched(root)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	copyPath := filepath.Join(dir, filepath.Base(m.file))
	if err := os.WriteFile(copyPath, []byte(src), 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{
		"Replace": {filepath.Join(root, filepath.FromSlash(m.file)): copyPath},
	})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	return path, os.WriteFile(path, overlay, 0o644)
}

// testFuncs returns the names of the top-level functions in the _test.go
// files of pkg (a directory from root).
func testFuncs(root, pkg string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pkg), "*_test.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}

// check reports every problem of the plan: missing fields, repeated names,
// killers that do not exist, original lines that do not occur exactly once,
// replacements that change nothing or do not parse.
func check(root string, plan []*mutation) []error {
	var errs []error
	fail := func(m *mutation, format string, args ...any) {
		errs = append(errs, fmt.Errorf("mutant %s (%s:%d): %s", m.name, planFile, m.line, fmt.Sprintf(format, args...)))
	}
	if len(plan) == 0 {
		errs = append(errs, fmt.Errorf("%s lists no mutant", planFile))
	}
	seen := map[string]bool{"none": true} // "none" names the run without a mutant
	funcs := map[string][]string{}
	for _, m := range plan {
		switch {
		case m.name == "" || strings.ContainsAny(m.name, " \t/"):
			fail(m, "the name must be one word")
		case seen[m.name]:
			fail(m, "the name is taken")
		}
		seen[m.name] = true
		if m.bug == "" || m.file == "" || m.from == "" || len(m.killers) == 0 {
			fail(m, "an entry needs bug, file, at least one kill, and - lines")
			continue
		}
		if strings.HasSuffix(m.file, "_test.go") || !strings.HasSuffix(m.file, ".go") {
			fail(m, "file %s is not a production Go file", m.file)
		}
		if m.from == m.to {
			fail(m, "the replacement equals the original")
		}
		for _, k := range m.killers {
			if _, ok := funcs[k.pkg]; !ok {
				names, err := testFuncs(root, k.pkg)
				if err != nil {
					fail(m, "killer package %s: %v", k.pkg, err)
				}
				funcs[k.pkg] = names
			}
			if !slices.Contains(funcs[k.pkg], k.test) {
				fail(m, "killer %s: no function %s in the tests of %s", k, k.test, k.pkg)
			}
		}
		src, err := m.patched(root)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), m.file, src, parser.SkipObjectResolution); err != nil {
			fail(m, "the patched file does not parse: %v", err)
		}
	}
	return errs
}

// TestPlan checks testdata/mutants.txt against the code as it is (cheap; it
// runs in every go test ./...): a change of the production code that removes
// or duplicates a mutant's original lines fails here, before any mutation
// run.
func TestPlan(t *testing.T) {
	plan, err := loadPlan()
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range check(root, plan) {
		t.Error(err)
	}
}
