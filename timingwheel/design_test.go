package timingwheel_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/design.md lists every package of the module with the packages of the
// module it imports, each above what it imports. The list must match the
// code, both ways, and every arrow must point down.
func TestDesignPackageDiagram(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```imports\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/design.md has no ```imports block")
	}
	var order []string
	documented := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		pkg, deps, ok := strings.Cut(line, "->")
		if !ok {
			t.Fatalf("design.md: line %q has no ->", line)
		}
		pkg = strings.TrimSpace(pkg)
		order = append(order, pkg)
		documented[pkg] = strings.Fields(deps)
	}
	for i, pkg := range order {
		for _, d := range documented[pkg] {
			if j := slices.Index(order, d); j <= i {
				t.Errorf("design.md: %s -> %s does not point down (line %d -> line %d)", pkg, d, i+1, j+1)
			}
		}
	}

	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(goBin, "list", "-json", "./...")
	cmd.Dir = ".."
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, errb.String())
	}
	actual := map[string][]string{}
	for dec := json.NewDecoder(&out); dec.More(); {
		var p struct {
			ImportPath string
			GoFiles    []string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if len(p.GoFiles) == 0 {
			continue // a directory of tests only (internal/mutant)
		}
		name := strings.TrimPrefix(p.ImportPath, modulePath+"/")
		actual[name] = []string{}
		for _, im := range p.Imports {
			if strings.HasPrefix(im, modulePath+"/") {
				actual[name] = append(actual[name], strings.TrimPrefix(im, modulePath+"/"))
			}
		}
	}
	for pkg, deps := range actual {
		doc, ok := documented[pkg]
		if !ok {
			t.Errorf("design.md: package %s is missing", pkg)
			continue
		}
		slices.Sort(deps)
		doc = slices.Sorted(slices.Values(doc))
		if !slices.Equal(deps, doc) {
			t.Errorf("design.md: %s imports %v, the diagram says %v", pkg, deps, doc)
		}
	}
	for pkg := range documented {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("design.md: package %s is not in the module", pkg)
		}
	}
}
