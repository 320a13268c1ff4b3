package proptest_test

import (
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// docCode returns the code blocks of the package doc.
func docCode(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var p comment.Parser
	var blocks []string
	for _, b := range p.Parse(f.Doc.Text()).Content {
		if c, ok := b.(*comment.Code); ok {
			blocks = append(blocks, c.Text)
		}
	}
	return blocks
}

// The package doc's code is what this package's tests run: the CI file is
// ci_test.go but for its package clause, and the locked wheel is in
// wrapper_test.go.
func TestDocCodeIsTested(t *testing.T) {
	blocks := docCode(t)
	if len(blocks) != 2 {
		t.Fatalf("want 2 code blocks in the package doc (the CI file, the locked wheel), found %d", len(blocks))
	}
	ci, err := os.ReadFile("ci_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(ci), "package proptest_test", "package myapp_test", 1); blocks[0] != want {
		t.Errorf("the doc's CI file differs from ci_test.go:\n%s\nwant:\n%s", blocks[0], want)
	}
	wrapper, err := os.ReadFile("wrapper_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wrapper), blocks[1]) {
		t.Errorf("the doc's locked wheel is not in wrapper_test.go:\n%s", blocks[1])
	}
}
