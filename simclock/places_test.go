package simclock

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPlacesTable: the table of docs/design.md that says where a timer can
// be names, for each place, invariant IDs that docs/invariants.md states
// and simclock's checks report, and between its rows it names every SC
// invariant there is.
func TestPlacesTable(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	design, invs := read("../docs/design.md"), read("../docs/invariants.md")
	checks := read("invariant.go") + read("wheel.go")
	_, table, ok := strings.Cut(design, "| place | state | holds | invariants |")
	table, _, _ = strings.Cut(table, "\n\n")
	if !ok {
		t.Fatal("docs/design.md has no table of the places a timer can be")
	}
	id := regexp.MustCompile(`\b(SC|SW)[0-9]+\b`)
	var named []string
	for _, row := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(row, "|")
		if len(cells) < 5 {
			t.Fatalf("row %q: want four cells", row)
		}
		ids := id.FindAllString(cells[4], -1)
		if len(ids) == 0 {
			t.Errorf("place %q names no invariant", strings.TrimSpace(cells[1]))
		}
		for _, x := range ids {
			if !strings.Contains(invs, "| "+x+" |") {
				t.Errorf("place %q: %s is not in docs/invariants.md's tables", strings.TrimSpace(cells[1]), x)
			}
			if !strings.Contains(checks, `invariant.Errorf("`+x+`"`) {
				t.Errorf("place %q: no check of simclock reports %s", strings.TrimSpace(cells[1]), x)
			}
			named = append(named, x)
		}
	}
	for _, x := range slices.Compact(slices.Sorted(slices.Values(id.FindAllString(checks, -1)))) {
		if strings.HasPrefix(x, "SC") && !slices.Contains(named, x) {
			t.Errorf("%s, which simclock checks, governs no place in the table", x)
		}
	}
}
