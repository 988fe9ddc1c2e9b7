// The click pipeline's cadence, the same above both stores (clicks/pipeline.ts): a
// backlog is moved whoever wrote it, a flood of redirects takes the time it would use,
// and moveAll / pruneAll go on until a step comes back short. Each store's own steps
// are tested on its database (store-contract, analytics-store).

import { describe, expect, test } from 'bun:test';
import {
  BACKLOG_CLICKS,
  BUSY_CLICKS,
  budgetOf,
  type Cadence,
  ClickPipeline,
  type ClickSteps,
} from '../../src/clicks/pipeline.ts';
import { silentLogger } from '../../src/logger.ts';
import { eventually } from '../support/binary.ts';

const budgets = { idle: 500, backlog: 40, flood: 0 };

/** A log of `waiting` clicks, moved and pruned in memory. */
function fakeLog(waiting: number) {
  const log = { waiting, moved: 0, records: 0, steps: 0 };
  const steps: ClickSteps = {
    move(limit) {
      log.steps++;
      const n = Math.min(limit, log.waiting);
      log.waiting -= n;
      log.moved += n;
      return n;
    },
    backlog: () => log.waiting,
    prune(_before, limit) {
      const n = Math.min(limit, log.records);
      log.records -= n;
      return n;
    },
  };
  return { log, steps };
}

const cadence = (intervalMs: number): Cadence => ({
  intervalMs,
  moveSlice: 10,
  drainSlice: 100,
  pruneSlice: 7,
  budgets,
});

describe('the flood rule', () => {
  test('few clicks arriving: the idle budget; a flood: none, unless the backlog is large', () => {
    expect(budgetOf(0, 5, budgets)).toBe(500);
    expect(budgetOf(BUSY_CLICKS, 5, budgets)).toBe(500);
    expect(budgetOf(BUSY_CLICKS + 1, BACKLOG_CLICKS, budgets)).toBe(0);
    expect(budgetOf(BUSY_CLICKS + 1, BACKLOG_CLICKS + 1, budgets)).toBe(40);
  });
});

describe('the click pipeline', () => {
  test('a backlog no click of this process wrote is moved, a slice per step', async () => {
    const { log, steps } = fakeLog(95);
    const pipeline = new ClickPipeline(steps, cadence(10), silentLogger);
    pipeline.start(0);
    try {
      await eventually(
        () => log.waiting === 0,
        () => `${log.waiting} clicks still waiting`,
      );
      expect(log.moved).toBe(95);
      // Nine full slices and the short one that says the log is empty.
      expect(log.steps).toBe(10);
    } finally {
      await pipeline.stop();
    }
  });

  test('moveAll and pruneAll go on until a step comes back short', async () => {
    const { log, steps } = fakeLog(250);
    log.records = 20;
    const pipeline = new ClickPipeline(steps, cadence(0), silentLogger);
    expect(await pipeline.moveAll()).toBe(250);
    expect(log.steps).toBe(3);
    expect(await pipeline.pruneAll(Date.now())).toBe(20);
    expect(log.records).toBe(0);
    await pipeline.stop();
  });

  test('a step that fails ends the cycle; the next one carries on', async () => {
    const { log, steps } = fakeLog(30);
    let failures = 1;
    const failing: ClickSteps = {
      ...steps,
      move(limit) {
        if (failures-- > 0) throw new Error('busy');
        return steps.move(limit);
      },
    };
    const pipeline = new ClickPipeline(failing, cadence(10), silentLogger);
    pipeline.start(0);
    try {
      await eventually(
        () => log.waiting === 0,
        () => `${log.waiting} clicks still waiting`,
      );
      expect(failures).toBeLessThan(0);
    } finally {
      await pipeline.stop();
    }
  });
});
