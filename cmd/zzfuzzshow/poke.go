package main

import (
	"fmt"
	"time"

	"github.com/simctl/simctl/engine"
	"github.com/simctl/simctl/spec"
)

func poke(s *spec.Suite) {
	for _, v := range s.Variants {
		m := v.Machine
		var (
			cfg engine.Config
			res engine.Result
		)
		t := time.Now()
		err := m.Start(&cfg, 0, &res)
		fmt.Println("start", time.Since(t), err)
		if err != nil {
			return
		}
		for i := range min(len(m.Intents()), 8) {
			ev := engine.Event{Kind: engine.UserEvent, Intent: engine.IntentID(i), At: int64(i + 1), Text: "x", Value: "x", Confidence: 1}
			t := time.Now()
			err := m.Step(&cfg, &ev, &res)
			fmt.Println("step", i, time.Since(t), err)
			if err != nil || cfg.Final {
				return
			}
		}
	}
}
