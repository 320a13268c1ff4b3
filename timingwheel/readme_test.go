package timingwheel_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const modulePath = "github.com/gotimingwheel/timingwheel"

// fence is one fenced code block of a Markdown file.
type fence struct {
	lang string // the info string after the opening fence: "go", "sh", "text", ...
	text string
	line int // the line of the opening fence, from 1
}

// readmeFences returns every fenced code block of README.md in order.
func readmeFences(t *testing.T) []fence {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		out  []fence
		open *fence
		body []string
	)
	for i, l := range strings.Split(string(b), "\n") {
		switch {
		case open == nil && strings.HasPrefix(l, "```"):
			open = &fence{lang: strings.TrimSpace(strings.TrimPrefix(l, "```")), line: i + 1}
			body = body[:0]
		case open != nil && strings.TrimSpace(l) == "```":
			open.text = strings.Join(body, "\n") + "\n"
			out = append(out, *open)
			open = nil
		case open != nil:
			body = append(body, l)
		}
	}
	if open != nil {
		t.Fatalf("README.md:%d: a code block is not closed", open.line)
	}
	return out
}

// readmeGroup is the Go blocks of README.md that make one package: a program
// (package main) or consecutive blocks of one package, such as a file of code
// and its test. want is the output the README states for a program (the text
// block right after it), if any.
type readmeGroup struct {
	pkg   string
	files []fence
	tests []string // the Test and Fuzz functions of its _test.go files
	want  string
	dir   string
}

// readmeGroups parses every ```go block of README.md as a complete Go file
// and groups them into packages.
func readmeGroups(t *testing.T) []*readmeGroup {
	t.Helper()
	fences := readmeFences(t)
	var groups []*readmeGroup
	nGo := 0
	for i, b := range fences {
		if b.lang != "go" {
			if strings.HasPrefix(b.lang, "go") {
				t.Errorf("README.md:%d: code block tagged %q: a Go block must be tagged go", b.line, b.lang)
			}
			continue
		}
		nGo++
		f, err := parser.ParseFile(token.NewFileSet(), fmt.Sprintf("README.md:%d", b.line), b.text, 0)
		if err != nil {
			t.Errorf("README.md:%d: every go block must be a complete Go file: %v", b.line, err)
			continue
		}
		pkg := f.Name.Name
		var tests []string
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil &&
				(strings.HasPrefix(fd.Name.Name, "Test") || strings.HasPrefix(fd.Name.Name, "Fuzz")) {
				tests = append(tests, fd.Name.Name)
			}
		}
		var g *readmeGroup
		if last := len(groups) - 1; pkg != "main" && last >= 0 && groups[last].pkg == pkg {
			g = groups[last]
		} else {
			g = &readmeGroup{pkg: pkg}
			groups = append(groups, g)
		}
		g.files = append(g.files, b)
		g.tests = append(g.tests, tests...)
		if pkg == "main" && i+1 < len(fences) && fences[i+1].lang == "text" {
			g.want = fences[i+1].text
		}
	}
	if nGo == 0 {
		t.Fatal("README.md has no go block")
	}
	for _, g := range groups {
		if g.pkg != "main" && len(g.tests) == 0 {
			t.Errorf("README.md:%d: package %s has no Test or Fuzz function and is not a program: nothing would run it",
				g.files[0].line, g.pkg)
		}
	}
	return groups
}

// isTestFile reports whether a README block goes in a _test.go file: it
// declares tests, or its package is an external test package.
func isTestFile(pkg, src string) bool {
	return strings.HasSuffix(pkg, "_test") || regexp.MustCompile(`(?m)^func (Test|Fuzz)\w*\(`).MatchString(src)
}

// TestReadmeCode builds every Go block of README.md in a module of its own
// that uses this checkout, the way a user who pastes them would: go vet on
// every package, go test -v on the packages with tests (each Test and Fuzz
// function must pass, not only compile), and go run on each program, whose
// output must equal the text block that follows it in the README.
func TestReadmeCode(t *testing.T) {
	groups := readmeGroups(t)
	if t.Failed() {
		t.FailNow()
	}
	if testing.Short() {
		t.Skip("-short: the README's blocks parse; not building or running them")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	gomod := "module readme\n\ngo 1.23\n\nrequire " + modulePath + " v0.0.0\n\nreplace " + modulePath + " => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(mod, "go.mod"), []byte(gomod))
	write(filepath.Join(mod, "go.sum"), sum)

	var pkgs []string // the directories to vet
	for i, g := range groups {
		g.dir = fmt.Sprintf("block%d", i+1)
		for j, f := range g.files {
			name := fmt.Sprintf("block%d.go", j+1)
			if isTestFile(g.pkg, f.text) {
				name = fmt.Sprintf("block%d_test.go", j+1)
			}
			write(filepath.Join(mod, g.dir, name), []byte(f.text))
		}
		pkgs = append(pkgs, "./"+g.dir)
	}

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("go %s in the README's module: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String()
	}
	run(append([]string{"vet"}, pkgs...)...)
	for _, g := range groups {
		at := fmt.Sprintf("README.md:%d", g.files[0].line)
		if g.pkg == "main" {
			got := run("run", "./"+g.dir)
			if g.want != "" && got != g.want {
				t.Errorf("%s: the program printed\n%s\nthe README says\n%s", at, got, g.want)
			}
			continue
		}
		out := run("test", "-count=1", "-v", "./"+g.dir)
		for _, name := range g.tests {
			if !strings.Contains(out, "--- PASS: "+name+" ") {
				t.Errorf("%s: %s did not pass:\n%s", at, name, out)
			}
		}
	}
}

// TestReadmeCommands checks the shell blocks of README.md against this
// checkout: go get names this module, go run names a main package in it,
// and go test names packages that exist. (TestReadmeCode runs the Go
// blocks; these commands are too long to run in a test.)
func TestReadmeCommands(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(gomod)
	if m == nil || string(m[1]) != modulePath {
		t.Fatalf("go.mod does not declare module %s", modulePath)
	}
	n := 0
	for _, b := range readmeFences(t) {
		if b.lang != "sh" {
			continue
		}
		for i, l := range strings.Split(strings.TrimSpace(b.text), "\n") {
			at := fmt.Sprintf("README.md:%d", b.line+1+i)
			if c := strings.Index(l, "#"); c >= 0 {
				l = l[:c]
			}
			f := strings.Fields(l)
			if len(f) < 3 || f[0] != "go" {
				continue
			}
			n++
			switch f[1] {
			case "get":
				if f[2] != modulePath {
					t.Errorf("%s: go get %s, but the module is %s", at, f[2], modulePath)
				}
			case "run", "test":
				dir := strings.TrimSuffix(f[2], "...")
				if !strings.HasPrefix(dir, "./") {
					t.Errorf("%s: go %s %s: want a path inside this repository", at, f[1], f[2])
					continue
				}
				out, err := exec.Command(goBin, "list", "-f", "{{.Name}}", path.Join("..", f[2])).CombinedOutput()
				if err != nil {
					t.Errorf("%s: go %s %s: no such package: %v\n%s", at, f[1], f[2], err, out)
				} else if f[1] == "run" && strings.TrimSpace(string(out)) != "main" {
					t.Errorf("%s: go run %s: package %s, not a command", at, f[2], strings.TrimSpace(string(out)))
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("README.md has no go command in a sh block")
	}
}
