package timingwheel_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/gotimingwheel/timingwheel"

// readmeProgram returns the first Go block of the README.
func readmeProgram(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no ```go block")
	}
	return string(m[1])
}

// funcBody returns the statements of function name in src, one trimmed line
// each, without blank lines and without the Output comment of an example.
func funcBody(t *testing.T, file, src, name string) (lines, output []string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || fd.Recv != nil {
			continue
		}
		body := src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset]
		inOutput := false
		for _, l := range strings.Split(body, "\n") {
			l = strings.TrimSpace(l)
			switch {
			case l == "":
			case l == "// Output:":
				inOutput = true
			case inOutput && strings.HasPrefix(l, "//"):
				output = append(output, strings.TrimSpace(strings.TrimPrefix(l, "//")))
			default:
				lines = append(lines, l)
			}
		}
		return lines, output
	}
	t.Fatalf("%s: no func %s", file, name)
	return nil, nil
}

// The README's first program is a complete program that imports one package
// of this module, is the package Example line for line (so its output is
// checked), and runs as written.
func TestReadmeProgram(t *testing.T) {
	prog := readmeProgram(t)
	f, err := parser.ParseFile(token.NewFileSet(), "README.md", prog, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("the README program does not parse: %v", err)
	}
	if f.Name.Name != "main" {
		t.Fatalf("the README program is package %s, want main", f.Name.Name)
	}
	var own []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if strings.HasPrefix(p, modulePath) {
			own = append(own, p)
		}
	}
	if len(own) != 1 || own[0] != modulePath+"/timingwheel" {
		t.Fatalf("the README program imports %v of this module, want only %s/timingwheel", own, modulePath)
	}

	readme, _ := funcBody(t, "README.md", prog, "main")
	ex, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	example, want := funcBody(t, "example_test.go", string(ex), "Example")
	if strings.Join(readme, "\n") != strings.Join(example, "\n") {
		t.Fatalf("README's main differs from Example in example_test.go:\nREADME:\n%s\n\nExample:\n%s",
			strings.Join(readme, "\n"), strings.Join(example, "\n"))
	}
	if len(want) == 0 {
		t.Fatal("Example has no Output comment")
	}

	if testing.Short() {
		t.Skip("-short: not running the README program")
	}
	got := runProgram(t, prog)
	if strings.TrimSpace(got) != strings.Join(want, "\n") {
		t.Fatalf("the README program printed\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// runProgram runs src as the main package of a module of its own that uses
// this checkout, offline, and returns its output.
func runProgram(t *testing.T, src string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module readme\n\ngo 1.23\n\nrequire " + modulePath + " v0.0.0\n\nreplace " + modulePath + " => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run of the README program: %v\n%s", err, errb.String())
	}
	return out.String()
}
