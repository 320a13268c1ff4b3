package invtest_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
	"github.com/gotimingwheel/timingwheel/invariant"
)

// fakeTB records what Expect reports instead of failing the real test.
type fakeTB struct {
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
}

func TestExpect(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		id       string
		wantFail bool
	}{
		{"nil error: corruption not detected", nil, "PQ1", true},
		{"wrong ID", invariant.Errorf("PQ2", "d"), "PQ1", true},
		{"not a violation", io.EOF, "PQ1", true},
		{"right ID", invariant.Errorf("PQ1", "d"), "PQ1", false},
		{"right ID, wrapped", fmt.Errorf("wheel: %w", invariant.Errorf("TW4", "d")), "TW4", false},
		{"ID prefix is not the ID", invariant.Errorf("PQ10", "d"), "PQ1", true},
	}
	for _, tc := range tests {
		f := &fakeTB{}
		invtest.Expect(f, tc.err, tc.id)
		if f.failed != tc.wantFail {
			t.Errorf("%s: Expect failed = %v (%q), want %v", tc.name, f.failed, f.msg, tc.wantFail)
		}
		if f.failed && !strings.Contains(f.msg, tc.id) {
			t.Errorf("%s: message %q does not name %s", tc.name, f.msg, tc.id)
		}
	}
}

// TestOnlyTestsImportIt: no production file of the module imports invtest,
// so the helper stays out of what users build.
func TestOnlyTestsImportIt(t *testing.T) {
	const path = "github.com/gotimingwheel/timingwheel/internal/invtest"
	root := filepath.Join("..", "..")
	users, files := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			if v, _ := strconv.Unquote(imp.Path.Value); v == path {
				if !strings.HasSuffix(p, "_test.go") {
					t.Errorf("%s imports %s: only _test.go files may", p, path)
				}
				users++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 || users == 0 {
		t.Fatalf("walked %d Go files, %d import invtest: not the module's tree", files, users)
	}
}
