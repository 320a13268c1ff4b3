package proptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/priorityqueue"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// TestInterfaceDocs: Wheel and Queue are the harness's interfaces under
// public names; their docs list exactly their methods, which the library's
// own wheel and queue have with the same signatures.
func TestInterfaceDocs(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "check.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				docs[sp.(*ast.TypeSpec).Name.Name] = g.Doc.Text()
			}
		}
	}
	for _, c := range []struct {
		name        string
		iface, real reflect.Type
	}{
		{"Wheel", reflect.TypeFor[Wheel](), reflect.TypeFor[*timingwheel.Wheel[int]]()},
		{"Queue", reflect.TypeFor[Queue](), reflect.TypeFor[*priorityqueue.Queue[int]]()},
	} {
		if !c.real.Implements(c.iface) {
			t.Errorf("%v does not have every method of %s", c.real, c.name)
		}
		doc := strings.Join(strings.Fields(docs[c.name]), " ")
		const lead = "of the same names and signatures: "
		_, list, ok := strings.Cut(doc, lead)
		list, _, ok2 := strings.Cut(list, ".")
		if !ok || !ok2 {
			t.Errorf("the doc of %s lists no methods after %q:\n%s", c.name, lead, doc)
			continue
		}
		listed := strings.Split(strings.Replace(list, " and ", ", ", 1), ", ")
		var methods []string
		for i := range c.iface.NumMethod() {
			methods = append(methods, c.iface.Method(i).Name)
		}
		slices.Sort(listed)
		if !slices.Equal(listed, methods) {
			t.Errorf("the doc of %s lists %v; its methods are %v", c.name, listed, methods)
		}
	}
}

// TestWrapperMethodList: WithWrapper's doc lists the wheel methods the
// checks compare besides WheelOf's, which are those the wrapper forwards
// (optional) and the wheel has.
func TestWrapperMethodList(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "wrapper.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "WithWrapper" {
			doc = strings.Join(strings.Fields(fn.Doc.Text()), " ")
		}
	}
	const lead = "when your wheel has them: "
	_, list, ok := strings.Cut(doc, lead)
	list, _, ok2 := strings.Cut(list, ".")
	if !ok || !ok2 {
		t.Fatalf("WithWrapper's doc lists no methods after %q:\n%s", lead, doc)
	}
	listed := strings.Split(strings.Replace(list, " and ", ", ", 1), ", ")
	if !slices.Equal(listed, wheelMethods[4:]) {
		t.Errorf("WithWrapper's doc lists %v; the checks compare %v", listed, wheelMethods[4:])
	}
	opt := slices.Sorted(maps.Keys(optional[int](nil)))
	if got := slices.Sorted(slices.Values(wheelMethods)); !slices.Equal(got, opt) {
		t.Errorf("wheelMethods %v, the wrapper forwards %v", got, opt)
	}
	wheel := reflect.TypeFor[*timingwheel.Wheel[int]]()
	for _, name := range wheelMethods {
		if _, ok := wheel.MethodByName(name); !ok {
			t.Errorf("the wheel has no method %s", name)
		}
	}
}
