package signals

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning"
)

// TestExampleFireGolden extracts the stop signals of the fire example
// project (examples/fire/.planning) through planning.Load. It skips while
// the example or the loop parser is not there yet.
func TestExampleFireGolden(t *testing.T) {
	// The example ships with the repository and holds one loop file
	// (examples/fire/.planning/loops/fire-loop-20260123-143052.md): a
	// missing folder or a loop the parser no longer reads is a failure.
	root := filepath.Join(sharedtest.ModuleRoot(), "examples", "fire", ".planning")
	p, err := planning.Load(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Loops) != 1 || p.Loops[0].Path != "loops/fire-loop-20260123-143052.md" || len(p.Loops[0].Iterations) == 0 {
		t.Fatalf("planning.Load read loops %+v from examples/fire; want the one loop file with its iterations", p.Loops)
	}
	sigs := Extract(p, nil, nil)
	out, err := json.MarshalIndent(struct {
		Signals []Signal
		Health  []Health
	}{sigs, loopHealth(p)}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "example-fire.golden.json", append(out, '\n'))
}

func loopHealth(p *planning.Project) []Health {
	var hs []Health
	for _, l := range p.Loops {
		hs = append(hs, Evaluate(IterationsFromLoop(l), DefaultThresholds()))
	}
	return hs
}
