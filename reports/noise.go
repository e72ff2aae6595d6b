package reports

// NLU noise sweeps (simctl run --nlu-noise-sweep): noise.csv, the noise
// rows of summary.json, and a chart of task success against the NLU error
// rate for report.html.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/simctl/simctl/generate"
)

// NoiseCSV is the noise sweep's file.
const NoiseCSV = "noise.csv"

// NoisePoint is what the generated conversations of one suite and variant
// did at one NLU error rate of a sweep.
type NoisePoint struct {
	Variant string
	Rate    float64
	Metrics generate.Metrics
	// Goals are the per-goal trials and successes, for pass^k.
	Goals []generate.GoalTally
}

// OptRate is a rate that may be undefined (pass^k when no goal had k
// conversations): empty in CSV, null in JSON.
type OptRate struct {
	Value float64
	OK    bool
}

// MarshalCSV implements gocsv's TypeMarshaller.
func (r OptRate) MarshalCSV() (string, error) {
	if !r.OK {
		return "", nil
	}
	return strconv.FormatFloat(r.Value, 'f', -1, 64), nil
}

// MarshalJSON writes null for an undefined rate.
func (r OptRate) MarshalJSON() ([]byte, error) {
	if !r.OK {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(r.Value, 'f', -1, 64)), nil
}

// NoiseRow is one line of noise.csv and one entry of a suite's noise in
// summary.json: the outcomes of the generated conversations of one suite
// and variant at one NLU error rate.
type NoiseRow struct {
	Suite         string  `csv:"suite" json:"-"`
	Variant       string  `csv:"variant" json:"variant"`
	Rate          float64 `csv:"noise" json:"noise"`
	Conversations int     `csv:"conversations" json:"conversations"`
	Successes     int     `csv:"successes" json:"successes"`
	// SuccessRate is empty (null) when the suite's users have no goal
	// to reach, as in generated.csv.
	SuccessRate      OptRate `csv:"success_rate" json:"success_rate"`
	Escalations      int     `csv:"escalations" json:"escalations"`
	EscalationRate   float64 `csv:"escalation_rate" json:"escalation_rate"`
	Cancellations    int     `csv:"cancellations" json:"cancellations"`
	CancellationRate float64 `csv:"cancellation_rate" json:"cancellation_rate"`
	Violating        int     `csv:"violating_conversations" json:"violating_conversations"`
	Violations       int     `csv:"violations" json:"violations"`
	Pass1            OptRate `csv:"pass^1" json:"-"`
	Pass2            OptRate `csv:"pass^2" json:"-"`
	Pass3            OptRate `csv:"pass^3" json:"-"`
	Pass4            OptRate `csv:"pass^4" json:"-"`
	Pass5            OptRate `csv:"pass^5" json:"-"`
	Pass6            OptRate `csv:"pass^6" json:"-"`
	Pass7            OptRate `csv:"pass^7" json:"-"`
	Pass8            OptRate `csv:"pass^8" json:"-"`
	// PassHatK is pass^1 .. pass^8, for JSON.
	PassHatK []OptRate `csv:"-" json:"pass_hat_k"`
}

// noiseRow renders one point of suite s.
func noiseRow(suite string, p NoisePoint) NoiseRow {
	m := p.Metrics
	r := NoiseRow{Suite: suite, Variant: p.Variant, Rate: p.Rate, Conversations: m.Conversations,
		Successes: m.Successes, SuccessRate: OptRate{Value: ratio(m.Successes, m.Conversations), OK: m.SuccessBy != generate.SuccessNone},
		Escalations: m.Escalations, EscalationRate: ratio(m.Escalations, m.Conversations),
		Cancellations: m.Cancellations, CancellationRate: ratio(m.Cancellations, m.Conversations),
		Violating: m.Violating, Violations: m.Violations}
	for k := 1; k <= generate.MaxPassK; k++ {
		v, ok := generate.PassHatK(p.Goals, k)
		r.PassHatK = append(r.PassHatK, OptRate{Value: round(v), OK: ok})
	}
	r.Pass1, r.Pass2, r.Pass3, r.Pass4 = r.PassHatK[0], r.PassHatK[1], r.PassHatK[2], r.PassHatK[3]
	r.Pass5, r.Pass6, r.Pass7, r.Pass8 = r.PassHatK[4], r.PassHatK[5], r.PassHatK[6], r.PassHatK[7]
	return r
}

// suiteNoiseRows returns a suite's sweep rows, in the order measured
// (variant, then rate).
func suiteNoiseRows(s *Suite) []NoiseRow {
	var rows []NoiseRow
	for _, p := range s.Noise {
		rows = append(rows, noiseRow(s.Name, p))
	}
	return rows
}

// NoiseRows returns every row of noise.csv: suites by name, then variant
// and rate as measured. The page can show them as a table.
func NoiseRows(run *Run) ([]NoiseRow, error) {
	suites, err := ordered(run)
	if err != nil {
		return nil, err
	}
	rows := []NoiseRow{}
	for _, s := range suites {
		rows = append(rows, suiteNoiseRows(s)...)
	}
	return rows, nil
}

// WriteNoiseCSV writes noise.csv.
func WriteNoiseCSV(w io.Writer, run *Run) error {
	rows, err := NoiseRows(run)
	if err != nil {
		return err
	}
	return marshalCSV(w, &rows)
}

// hasNoise reports whether the run swept NLU noise.
func hasNoise(run *Run) bool {
	if run == nil {
		return false
	}
	for _, s := range run.Suites {
		if s != nil && len(s.Noise) > 0 {
			return true
		}
	}
	return false
}

// removeStaleNoise removes the noise.csv of an earlier run when this one
// swept no noise.
func removeStaleNoise(dir string, run *Run) error {
	if hasNoise(run) {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, NoiseCSV)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// NoiseChartSVG draws task success against the NLU error rate, one line
// per suite (and variant), as a standalone SVG document for report.html.
// It returns nil when the run swept no noise. The drawing is a pure
// function of the run: the same run gives the same bytes.
func NoiseChartSVG(run *Run) ([]byte, error) {
	if !hasNoise(run) {
		return nil, nil
	}
	suites, err := ordered(run)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = "Task success against NLU noise"
	p.X.Label.Text = "NLU error rate"
	p.Y.Label.Text = "task success (%)"
	p.Y.Min, p.Y.Max = 0, 100
	p.X.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = false
	series := 0
	for _, s := range suites {
		variants := map[string]bool{}
		for _, pt := range s.Noise {
			variants[pt.Variant] = true
		}
		var order []string
		for _, pt := range s.Noise {
			if variants[pt.Variant] {
				order = append(order, pt.Variant)
				variants[pt.Variant] = false
			}
		}
		for _, v := range order {
			var xys plotter.XYs
			for _, pt := range s.Noise {
				// Users with no goal to reach have no success to draw.
				if pt.Variant == v && pt.Metrics.SuccessBy != generate.SuccessNone {
					xys = append(xys, plotter.XY{X: pt.Rate, Y: 100 * ratio(pt.Metrics.Successes, pt.Metrics.Conversations)})
				}
			}
			if len(xys) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, fmt.Errorf("reports: noise chart of %s: %w", s.Name, err)
			}
			line.Color = plotutil.Color(series)
			line.Dashes = plotutil.Dashes(0)
			points.Color = plotutil.Color(series)
			points.Shape = plotutil.Shape(series)
			p.Add(line, points)
			label := s.Name
			if len(order) > 1 {
				label += " [" + v + "]"
			}
			p.Legend.Add(label, line, points)
			series++
		}
	}
	if series == 0 {
		return nil, nil // no suite swept has a goal to reach
	}
	c := vgsvg.New(6*vg.Inch, 3.5*vg.Inch)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: noise chart: %w", err)
	}
	return b.Bytes(), nil
}
