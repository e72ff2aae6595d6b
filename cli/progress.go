package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress reports how a long run goes, on stderr only and never into a
// report (it reads the wall clock): on a terminal a bar redrawn in place,
// elsewhere (CI) a plain line every few seconds, and nothing with --quiet.
type progress struct {
	w        io.Writer
	tty      bool
	total    int64
	done     atomic.Int64
	violated atomic.Int64
	start    time.Time
	// complete is set, by the reporter's goroutine only, once it has
	// shown every conversation done: what runs after the conversations
	// (the explorer) would otherwise be shown as a rate that decays
	// with "about 0s left", line after line.
	complete bool
	stop     chan struct{}
	wg       sync.WaitGroup
}

// newProgress starts reporting on w for a run of total conversations, or
// returns nil (report nothing) when quiet or there is nothing to count.
func newProgress(w io.Writer, total int64, quiet bool) *progress {
	if quiet || total == 0 {
		return nil
	}
	p := &progress{w: w, tty: isTerminal(w), total: total, start: time.Now(), stop: make(chan struct{})}
	every := 5 * time.Second
	if p.tty {
		every = 200 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.print()
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// add counts finished conversations; safe from any goroutine.
func (p *progress) add(conversations, violating int) {
	if p == nil {
		return
	}
	p.done.Add(int64(conversations))
	p.violated.Add(int64(violating))
}

// finish stops the reporter and prints a last line saying how the run
// ended: finished, or stopped by a signal part of the way. It reads no
// clock, so that it is the same line every time.
func (p *progress) finish(interrupted bool) {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	done, viol := p.done.Load(), p.violated.Load()
	how := "finished"
	if interrupted || done < p.total {
		how = "stopped"
	}
	line := fmt.Sprintf("progress: %s, %d/%d conversations, %d violating", how, done, p.total, viol)
	if p.tty {
		// Clear the bar, then the last state in its place.
		fmt.Fprintf(p.w, "\r%s\r%s\n", strings.Repeat(" ", 100), line)
		return
	}
	fmt.Fprintln(p.w, line)
}

// maxEstimate bounds the time left a line shows: past it the estimate
// says "more than", never a negative or overflowed duration.
const maxEstimate = 1000 * time.Hour

// estimate is the time left at rate conversations per second.
func estimate(left int64, rate float64) string {
	if left <= 0 {
		return "0s"
	}
	if rate <= 0 {
		return "?"
	}
	secs := float64(left) / rate
	if secs != secs || secs >= maxEstimate.Seconds() {
		return "more than " + maxEstimate.String()
	}
	return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
}

func (p *progress) print() {
	done, viol := p.done.Load(), p.violated.Load()
	if p.complete {
		return
	}
	p.complete = done >= p.total
	secs := time.Since(p.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(done) / secs
	}
	left := estimate(p.total-done, rate)
	pct := 100 * float64(done) / float64(p.total)
	if p.tty {
		const width = 30
		fill := int(pct / 100 * width)
		bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
		fmt.Fprintf(p.w, "\r[%s] %d/%d conversations  %.0f/s  %d violating  %s left ", bar, done, p.total, rate, viol, left)
		return
	}
	fmt.Fprintf(p.w, "progress: %d/%d conversations (%.0f%%), %.0f/s, %d violating, about %s left\n", done, p.total, pct, rate, viol, left)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
