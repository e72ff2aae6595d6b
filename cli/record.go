package cli

// simctl record: play a suite's scripted scenarios (and, with --generate,
// generated conversations) against a live NLU server and write what it
// answered as the suite's cassette.

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/simctl/simctl/generate"
	"github.com/simctl/simctl/reports"
	"github.com/simctl/simctl/sim"
	"github.com/simctl/simctl/spec"
)

type recordOptions struct {
	url       string
	overwrite bool
	generate  int
	seed      int64
	timeout   time.Duration
	retries   int
	backoff   time.Duration
	quiet     bool        // no line per recorded scenario
	stop      func() bool // a signal came: give up
}

// recorded is one suite's cassette, rendered and checked, waiting to be
// written.
type recorded struct {
	file string
	data []byte
}

// SIGINT or SIGTERM (ctx cancelled) ends the request under way at once;
// nothing is written, so every cassette stays as it was, and the status
// is ExitInterrupted.
func recordCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("record")
	var o recordOptions
	fs.StringVar(&o.url, "nlu-url", "", "the NLU server's parse endpoint, speaking Rasa's HTTP API (http://localhost:5005/model/parse)")
	fs.BoolVar(&o.overwrite, "overwrite", false, "start from an empty cassette instead of keeping the existing records")
	fs.IntVar(&o.generate, "generate", 0, "also record N generated conversations per suite and variant (those simctl run --generate N --seed S plays)")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the run's random source (as simctl run --seed)")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Second, "time limit of each request")
	fs.IntVar(&o.retries, "retries", 3, "retries of a request that got no reply, or a 5xx or 429 status")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print only each suite's cassette line, not a line per recorded scenario")
	fs.DurationVar(&o.backoff, "retry-backoff", 200*time.Millisecond, "wait before the first retry; it doubles for each next one")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if err := o.check(); err != nil {
		return 0, err
	}
	suites, err := loadSuites(ctx, "record", fs.Args())
	if err != nil {
		return 0, err
	}
	for _, s := range suites {
		if err := recordable(s); err != nil {
			return 0, err
		}
	}
	server := &sim.HTTPNLU{URL: o.url, Timeout: o.timeout, Retries: o.retries, Backoff: o.backoff, Ctx: ctx,
		Warn: func(msg string) { fmt.Fprintf(stderr, "simctl: warning: %s\n", oneLine(msg)) }}
	o.stop = func() bool { return interrupted(ctx) }
	var out []recorded
	for _, s := range suites {
		r, err := recordSuite(s, server, o, stdout)
		if o.stop() {
			fmt.Fprintf(stdout, "interrupted: nothing was written; every cassette is as it was\n")
			return ExitInterrupted, nil
		}
		if err != nil {
			return 0, err
		}
		out = append(out, r)
	}
	// Nothing is written until every suite has recorded without error.
	if err := writeCassettes(out); err != nil {
		return 0, err
	}
	return ExitOK, nil
}

func (o *recordOptions) check() error {
	if o.url == "" {
		return &usageError{"record needs the NLU server's parse endpoint: --nlu-url http://HOST:PORT/model/parse"}
	}
	u, err := url.Parse(o.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &usageError{fmt.Sprintf("--nlu-url: expected an http or https URL, got %q", o.url)}
	}
	if err := checkGenerate(o.generate); err != nil {
		return err
	}
	switch {
	case o.timeout <= 0:
		return &usageError{"--timeout takes a duration above 0 (5s)"}
	case o.retries < 0 || o.retries > MaxRetries:
		return &usageError{fmt.Sprintf("--retries takes a number of retries from 0 to %d, got %d", MaxRetries, o.retries)}
	case o.backoff < 0:
		return &usageError{"--retry-backoff takes a duration, 0 or more"}
	}
	return nil
}

// recordSuite plays suite s against the server and returns its cassette.
// The conversations run through the real driver, so each utterance is
// recorded with the state it was said in, and the server's replies decide
// where each conversation goes.
func recordSuite(s *spec.Suite, server *sim.HTTPNLU, o recordOptions, w io.Writer) (recorded, error) {
	old := s.Cassette
	if o.overwrite {
		old = nil
	}
	rec := sim.NewRecorder(server, s.NLU, old)
	nlu := sim.NLUOptions{Custom: rec.For}
	fmt.Fprintf(w, "suite %s (%s)\n", s.Name, s.Dir)
	differ := 0
	for _, sc := range s.Scenarios {
		for _, v := range s.VariantsFor(sc) {
			if o.stop() {
				return recorded{}, nil
			}
			r := sim.RunScenario(s, sc, sim.Options{Variant: v, Seed: o.seed, NLU: nlu})
			if err := rec.Err(); err != nil {
				return recorded{}, fmt.Errorf("record: suite %s: scenario %s: turn %d: %w", s.Name, sc.Name, r.Turns, err)
			}
			name := sc.Name
			if len(s.Variants) > 1 {
				name += " [" + v.Name + "]"
			}
			verdict := "passes"
			if r.Status == sim.Fail {
				verdict, differ = "FAILS", differ+1
			}
			if !o.quiet {
				fmt.Fprintf(w, "  recorded %-40s %s, %s with this NLU\n", name, count(r.Turns, "turn", "turns"), verdict)
			}
		}
	}
	if o.generate > 0 {
		for _, v := range s.Variants {
			met, _, err := generate.Measure(s, v, generate.Options{Seed: o.seed, From: 0, To: o.generate, NLU: nlu, Stop: o.stop})
			if err == nil {
				err = rec.Err()
			}
			if err != nil {
				return recorded{}, fmt.Errorf("record: suite %s: generated conversations [%s]: %w", s.Name, v.Name, err)
			}
			fmt.Fprintf(w, "  recorded %d generated conversations [%s]: success %.1f%% with this NLU\n", met.Conversations, v.Name,
				pct(met.Successes, met.Conversations))
		}
	}
	file := filepath.Join(s.Dir, spec.CassetteFile)
	if s.Cassette != nil {
		file = s.Cassette.File
	}
	recs := rec.Records()
	data, err := spec.EncodeCassette(recs)
	if err != nil {
		return recorded{}, fmt.Errorf("record: suite %s: %w", s.Name, err)
	}
	// What is written must load: check it as simctl run will.
	if _, err := spec.LoadCassette(file, data, s.Machine); err != nil {
		return recorded{}, fmt.Errorf("record: suite %s: the recorded cassette would not load: %w", s.Name, err)
	}
	kept := 0
	if old != nil {
		kept = len(old.Records)
	}
	fmt.Fprintf(w, "  cassette %s: %d records (%d new, %d kept), %d requests%s\n", file, len(recs), len(recs)-kept, kept,
		rec.Requests, latencyNote(recs, kept > 0))
	if differ > 0 {
		fmt.Fprintf(w, "  %d scenarios fail with this NLU; simctl run will report them\n", differ)
	}
	fmt.Fprintln(w)
	return recorded{file: file, data: data}, nil
}

// latencyNote summarises the recorded latencies.
func latencyNote(recs []spec.CassetteRecord, merged bool) string {
	if len(recs) == 0 {
		return ""
	}
	ms := make([]int64, len(recs))
	for i := range recs {
		ms[i] = recs[i].LatencyMS
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i] < ms[j] })
	what := "latency"
	if merged {
		what = "latency (old and new records)"
	}
	return fmt.Sprintf(", %s median %dms, max %dms", what, ms[(len(ms)-1)/2], ms[len(ms)-1])
}

// writeCassettes writes every cassette to a temporary file beside it, then
// renames them into place: a cassette is never half-written, and on an
// error no temporary file is left and no cassette is touched.
func writeCassettes(out []recorded) (err error) {
	temps := make([]string, len(out))
	defer func() {
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
	}()
	for i, r := range out {
		if temps[i], err = reports.WriteTemp(filepath.Dir(r.file), r.file, r.data); err != nil {
			return fmt.Errorf("record: %s: %w", r.file, err)
		}
	}
	for i, r := range out {
		if err := os.Rename(temps[i], r.file); err != nil {
			return fmt.Errorf("record: %s: %w", r.file, err)
		}
		temps[i] = ""
	}
	return nil
}

// recordable refuses, in one line, an SCXML suite none of whose scenarios
// has a user: turn: its scenarios send events by name, and record has no
// utterance to ask the NLU about.
func recordable(s *spec.Suite) error {
	if !spec.IsChartSuite(s.Dir) {
		return nil
	}
	for _, sc := range s.Scenarios {
		for _, t := range sc.Turns {
			if t.User != nil {
				return nil
			}
		}
	}
	return &usageError{fmt.Sprintf("%s: simctl record has nothing to record: it records a live NLU's parses of the user: turns of a suite's scenarios, and this SCXML suite's scenarios send events by name, with no utterance to parse", filepath.Join(s.Dir, spec.ChartFile))}
}
