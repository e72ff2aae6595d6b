package reports

// suiteLatencyViews summarises and charts the latency of each variant of
// s that has some (latencyVariants' order); nil when the run measured none.
func suiteLatencyViews(s *Suite) ([]latencyView, error) {
	var out []latencyView
	for _, v := range latencyVariants(s) {
		lv, err := newLatencyView(s.Machine, v, s.Latency[v])
		if err != nil {
			return nil, err
		}
		out = append(out, lv)
	}
	return out, nil
}

// sloView is one objective judged on one variant, for the page.
type sloView struct {
	Variant, SLO, Spec, Status, Got string
	Samples                         int64
}

// suiteSLOViews lists the suite's SLO verdicts in their order.
func suiteSLOViews(s *Suite) []sloView {
	var out []sloView
	for _, v := range s.SLOs {
		sv := sloView{Variant: v.Variant, Status: v.Status(), Got: v.GotText(), Samples: v.Samples}
		if v.SLO != nil {
			sv.SLO, sv.Spec = v.SLO.Text, posString(v.SLO.Pos)
		}
		out = append(out, sv)
	}
	return out
}
