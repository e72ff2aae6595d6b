package reports

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/eval"
)

// The latency charts are drawn by gonum/plot into SVG and inlined in the
// page. gonum measures text with the Liberation fonts it carries, so the
// SVG is the same on every machine; svgo escapes every text it writes.

// chartFill and chartLine are the bars' colours.
var (
	chartFill = color.RGBA{R: 0x4c, G: 0x78, B: 0xa8, A: 0xff}
	chartLine = color.RGBA{R: 0x2b, G: 0x4a, B: 0x6f, A: 0xff}
)

// xmlnsAttr matches the namespace attributes of gonum's root element.
var xmlnsAttr = regexp.MustCompile(`\s+xmlns(:\w+)?="[^"]*"`)

// chartWidth is the charts' drawn width; the page scales them to its
// column.
const chartWidth = 9 * vg.Inch

// maxHistBins bounds the bars of the turn latency histogram.
const maxHistBins = 40

// latencyView is one variant's latency: its summary and charts.
type latencyView struct {
	Variant                string
	Turns                  int64
	Mean                   string
	P50, P95, P99, Max     int64
	NLUSkipped, NLUSavedMS int64
	Histogram, ByState     template.HTML // inline SVG, empty when there is nothing to draw
}

// newLatencyView summarises l and draws its charts.
func newLatencyView(m *engine.Machine, variant string, l *eval.Latency) (latencyView, error) {
	v := latencyView{Variant: variant, Turns: l.Turn.Count(), P50: l.Turn.Percentile(50), P95: l.Turn.Percentile(95),
		P99: l.Turn.Percentile(99), Max: l.Turn.Max(), NLUSkipped: l.NLUSkipped, NLUSavedMS: l.NLUSavedMS, Mean: "–"}
	if n := l.Turn.Count(); n > 0 {
		v.Mean = fmt.Sprintf("%.1f", float64(l.Turn.Sum())/float64(n))
	}
	var err error
	if v.Histogram, err = histogramSVG(&l.Turn); err != nil {
		return v, err
	}
	v.ByState, err = stateP95SVG(m, l.ByState)
	return v, err
}

// styleText sets a text style to the sans-serif face, which reads better
// beside the page's own text.
func styleText(s *text.Style, size vg.Length) {
	s.Font.Variant = "Sans"
	s.Font.Size = size
}

func newChart(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	styleText(&p.Title.TextStyle, 12)
	styleText(&p.X.Label.TextStyle, 10)
	styleText(&p.Y.Label.TextStyle, 10)
	styleText(&p.X.Tick.Label, 9)
	styleText(&p.Y.Tick.Label, 9)
	return p
}

// histogramSVG draws the distribution of turn latencies: at most
// maxHistBins bars of equal width between the least and the greatest.
func histogramSVG(h *eval.Hist) (template.HTML, error) {
	vals, counts := h.Values()
	if len(vals) == 0 {
		return "", nil
	}
	lo, hi := float64(vals[0]), float64(vals[len(vals)-1])
	nb := min(maxHistBins, len(vals))
	if hi == lo {
		hi = lo + 1
	}
	width := (hi - lo) / float64(nb)
	bins := make([]plotter.HistogramBin, nb)
	for i := range bins {
		bins[i].Min, bins[i].Max = lo+float64(i)*width, lo+float64(i+1)*width
	}
	for i, v := range vals {
		k := min(int((float64(v)-lo)/width), nb-1)
		bins[k].Weight += float64(counts[i])
	}
	hist := &plotter.Histogram{Bins: bins, Width: width, FillColor: chartFill, LineStyle: plotter.DefaultLineStyle}
	hist.LineStyle.Color = chartLine
	hist.LineStyle.Width = vg.Points(0.5)
	p := newChart(fmt.Sprintf("Turn latency (%d turns)", h.Count()), "latency per turn (ms)", "turns")
	p.Add(hist)
	p.Y.Min = 0
	p.X.Tick.Marker, p.Y.Tick.Marker = wholeTicks{}, wholeTicks{}
	return renderSVG(p, chartWidth, 2.6*vg.Inch)
}

// stateP95SVG draws, for each state a turn ended in, the 95th percentile of
// those turns' latency: one horizontal bar per state, in state id order.
func stateP95SVG(m *engine.Machine, by map[engine.StateID]*eval.Hist) (template.HTML, error) {
	ids := make([]engine.StateID, 0, len(by))
	for id, h := range by {
		if h != nil && h.Count() > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	// Top to bottom in id order: gonum draws the first bar at the bottom.
	slices.Sort(ids)
	slices.Reverse(ids)
	vals := make(plotter.Values, len(ids))
	names := make([]string, len(ids))
	for i, id := range ids {
		vals[i] = float64(by[id].Percentile(95))
		names[i] = m.StateName(id)
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(9))
	if err != nil {
		return "", err
	}
	bars.Horizontal = true
	bars.Color = chartFill
	bars.LineStyle.Color = chartLine
	bars.LineStyle.Width = vg.Points(0.5)
	// Each bar carries its value at its end, so that nobody has to read
	// it off the axis.
	xys := make(plotter.XYs, len(vals))
	texts := make([]string, len(vals))
	top := 0.0
	for i, v := range vals {
		xys[i] = plotter.XY{X: v, Y: float64(i)}
		texts[i] = strconv.FormatFloat(v, 'f', -1, 64) + " ms"
		top = max(top, v)
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return "", err
	}
	for i := range labels.TextStyle {
		styleText(&labels.TextStyle[i], 8)
		labels.TextStyle[i].YAlign = draw.YCenter
	}
	labels.Offset = vg.Point{X: vg.Points(3)}
	p := newChart("p95 turn latency by the state the turn ended in", "p95 latency (ms)", "")
	p.Add(bars, labels)
	p.NominalY(names...)
	p.X.Min = 0
	p.X.Max = top * 1.12 // room for the values
	p.X.Tick.Marker = wholeTicks{}
	height := vg.Length(60+14*len(ids)) * vg.Points(1)
	return renderSVG(p, chartWidth, height)
}

// wholeTicks are gonum's default ticks labelled as whole numbers:
// milliseconds and turns have no fractions worth printing.
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		switch v := ticks[i].Value; {
		case ticks[i].Label == "":
		case v != math.Trunc(v):
			ticks[i].Label = "" // a fraction: keep the tick, drop the label
		default:
			ticks[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ticks
}

// renderSVG draws p and returns the <svg> element alone, for inlining.
func renderSVG(p *plot.Plot, w, h vg.Length) (template.HTML, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("reports: chart: %w", err)
	}
	out := b.Bytes()
	i := bytes.Index(out, []byte("<svg"))
	if i < 0 {
		return "", errors.New("reports: chart: gonum wrote no <svg> element")
	}
	out = out[i:]
	// Inline SVG needs no namespace declarations; dropping them also keeps
	// URLs out of a page that fetches nothing.
	if end := bytes.IndexByte(out, '>'); end > 0 {
		root := xmlnsAttr.ReplaceAll(out[:end], nil)
		out = append(root, out[end:]...)
	}
	// svgo escapes text; the page inlines the SVG as markup, so make sure
	// nothing active came through whatever the names were.
	for _, bad := range [][]byte{[]byte("<script"), []byte("<foreignObject"), []byte("<image"), []byte("href=")} {
		if bytes.Contains(bytes.ToLower(out), bytes.ToLower(bad)) {
			return "", fmt.Errorf("reports: chart: unexpected %s in the SVG", bad)
		}
	}
	return template.HTML(out), nil //nolint:gosec // gonum's SVG, text escaped by svgo and checked above
}
