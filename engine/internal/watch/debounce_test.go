package watch

import (
	"fmt"
	"reflect"
	"testing"
	"testing/synctest"
	"time"
)

// step sends one hint at an offset from the start; close ends the input.
type step struct {
	at    time.Duration
	hint  Hint
	close bool
}

type gotBatch struct {
	at time.Duration
	b  Batch
}

func paths(ps ...string) Batch { return Batch{Paths: ps} }

func TestDebouncer(t *testing.T) {
	ms := time.Millisecond
	h := func(at time.Duration, p string) step { return step{at: at, hint: Hint{Path: p}} }
	closeAt := func(at time.Duration) step { return step{at: at, close: true} }

	// A steady stream: one distinct path every 20 ms from 0 to 480 ms.
	var stream []step
	var first, second []string
	for k := 0; k <= 24; k++ {
		p := fmt.Sprintf("p%03d", k)
		stream = append(stream, h(time.Duration(k)*20*ms, p))
		if k <= 12 { // 0..240 ms: flushed by MaxWait at 250 ms
			first = append(first, p)
		} else { // 260..480 ms: first at 260, cap 510, last quiet due 530
			second = append(second, p)
		}
	}
	stream = append(stream, closeAt(time.Second))

	tests := []struct {
		name     string
		opts     DebounceOptions
		consumer time.Duration // time the consumer spends per batch
		steps    []step
		want     []gotBatch
	}{
		{
			name:  "single hint flushes after the quiet period",
			steps: []step{h(0, "a"), closeAt(time.Second)},
			want:  []gotBatch{{50 * ms, paths("a")}},
		},
		{
			name:  "each hint extends the quiet period",
			steps: []step{h(0, "a"), h(30*ms, "b"), h(60*ms, "c"), closeAt(time.Second)},
			want:  []gotBatch{{110 * ms, paths("a", "b", "c")}},
		},
		{
			name:  "a stream is cut by the maximum wait",
			steps: stream,
			want:  []gotBatch{{250 * ms, paths(first...)}, {510 * ms, paths(second...)}},
		},
		{
			name:  "duplicates collapse and paths are sorted",
			steps: []step{h(0, "b"), h(0, "a"), h(0, "b"), h(0, "c"), h(0, "a"), closeAt(time.Second)},
			want:  []gotBatch{{50 * ms, paths("a", "b", "c")}},
		},
		{
			name:  "more than MaxPaths becomes a rescan",
			opts:  DebounceOptions{MaxPaths: 3},
			steps: []step{h(0, "a"), h(0, "b"), h(0, "c"), h(0, "d"), closeAt(time.Second)},
			want:  []gotBatch{{50 * ms, Batch{Rescan: true}}},
		},
		{
			name:  "exactly MaxPaths stays a path batch",
			opts:  DebounceOptions{MaxPaths: 3},
			steps: []step{h(0, "a"), h(0, "b"), h(0, "c"), h(0, "c"), closeAt(time.Second)},
			want:  []gotBatch{{50 * ms, paths("a", "b", "c")}},
		},
		{
			name:  "a rescan hint absorbs paths",
			steps: []step{h(0, "a"), {at: 10 * ms, hint: Hint{Rescan: true}}, h(20*ms, "b"), closeAt(time.Second)},
			want:  []gotBatch{{70 * ms, Batch{Rescan: true}}},
		},
		{
			name:     "a slow consumer gets later hints merged into one batch",
			consumer: 200 * ms,
			steps:    []step{h(0, "a"), h(100*ms, "b"), h(180*ms, "c"), closeAt(time.Second)},
			// a flushes at 50; b is ready at 150 and c merges in at 230;
			// the consumer comes back at 250.
			want: []gotBatch{{50 * ms, paths("a")}, {250 * ms, paths("b", "c")}},
		},
		{
			name:     "merging past MaxPaths becomes a rescan",
			opts:     DebounceOptions{MaxPaths: 2},
			consumer: 200 * ms,
			steps:    []step{h(0, "a"), h(100*ms, "b"), h(160*ms, "c"), h(160*ms, "d"), closeAt(time.Second)},
			// b is ready at 150 (1 path); c and d merge in at 210 (3 > 2).
			want: []gotBatch{{50 * ms, paths("a")}, {250 * ms, Batch{Rescan: true}}},
		},
		{
			name:  "closing the input flushes at once",
			steps: []step{h(0, "a"), closeAt(10 * ms)},
			want:  []gotBatch{{10 * ms, paths("a")}},
		},
		{
			name:  "quiet input gives no batch",
			steps: []step{closeAt(time.Second)},
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				in := make(chan Hint)
				d := NewDebouncer(in, tt.opts)
				defer d.Close()
				start := time.Now()
				go func() {
					for _, s := range tt.steps {
						time.Sleep(s.at - time.Since(start))
						if s.close {
							close(in)
							return
						}
						in <- s.hint
					}
				}()
				var got []gotBatch
				for b := range d.Batches() {
					got = append(got, gotBatch{time.Since(start), b})
					time.Sleep(tt.consumer)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("batches:\n got %+v\nwant %+v", got, tt.want)
				}
			})
		})
	}
}

func TestDebouncerCloseDropsPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := make(chan Hint)
		d := NewDebouncer(in, DebounceOptions{})
		in <- Hint{Path: "a"}
		time.Sleep(10 * time.Millisecond)
		if err := d.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if b, ok := <-d.Batches(); ok {
			t.Errorf("got batch %+v after Close, want closed channel", b)
		}
		if err := d.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	})
}

func TestDebouncerDefaults(t *testing.T) {
	tests := []struct {
		in, want DebounceOptions
	}{
		{DebounceOptions{}, DebounceOptions{Quiet: DefaultQuiet, MaxWait: DefaultMaxWait, MaxPaths: DefaultMaxPaths}},
		{DebounceOptions{Quiet: time.Second, MaxWait: time.Millisecond, MaxPaths: 7}, DebounceOptions{Quiet: time.Second, MaxWait: time.Second, MaxPaths: 7}},
	}
	for _, tt := range tests {
		if got := tt.in.withDefaults(); got != tt.want {
			t.Errorf("withDefaults(%+v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
