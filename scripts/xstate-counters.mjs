// counters:NxN for the xstate graph peer: the explore package's
// countersYAML (explore/machines_test.go) written for xstate, so that
// getAdjacencyMap and getShortestPaths can be timed on a machine whose
// configurations are data (its context), not states. One state; context
// {x, y}; right and up count one of them up while it is below N-1; reset
// sets both to 0: N*N snapshots. Run from a copy of
// ../shared/peers/js-xstate-graph (scripts/peers-graph.sh puts it there).
//
// usage: node xstate-counters.mjs [N]
import { setup, assign } from 'xstate';
import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';

const n = Number(process.argv[2] || 300);
const machine = setup({
  guards: { xBelow: ({ context }) => context.x < n - 1, yBelow: ({ context }) => context.y < n - 1 },
}).createMachine({
  id: `counters${n}`, initial: 'plane', context: { x: 0, y: 0 },
  states: { plane: { on: {
    right: { guard: 'xBelow', actions: assign({ x: ({ context }) => context.x + 1 }) },
    up: { guard: 'yBelow', actions: assign({ y: ({ context }) => context.y + 1 }) },
    reset: { actions: assign({ x: 0, y: 0 }) },
  } } },
});
const events = [{ type: 'right' }, { type: 'up' }, { type: 'reset' }];
// One call each (the shortest paths of 90,000 snapshots take seconds).
for (const [algo, fn] of [['adjacency', () => getAdjacencyMap(machine, { events })], ['shortest', () => getShortestPaths(machine, { events })]]) {
  const t = process.hrtime.bigint();
  const r = fn();
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  const reachable = Array.isArray(r) ? r.length : Object.keys(r).length;
  console.log(`RESULT peer=js-xstate-graph machine=counters:${n}x${n} algo=${algo} reachable=${reachable} ms=${ms.toFixed(1)} peak_rss_kb=${process.resourceUsage().maxRSS}`);
}
