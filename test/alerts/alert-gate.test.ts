/**
 * The gate's grouping and rate limits on a clock the test moves: one alert
 * per kind and connector per `every`, carrying the count since the last one;
 * conditions alerted after `after`; "resolved" once when trouble ends.
 */
import { describe, expect, it } from 'vitest';
import { AlertGate, keyOf, type GateCheck } from '../../src/alerts/alert-gate.ts';
import type { Condition, DeadLetter } from '../../src/alerts/alert-model.ts';

const EVERY = 15 * 60_000;
const AFTER = 5 * 60_000;
const none: GateCheck = { conditions: [], deadLetters: [], recovered: new Set() };
const dead = (id: number, at: number, connector = 'desk'): DeadLetter => ({ kind: 'delivery_dead', connector, id, code: 'TG_X', reason: 'refused', summary: 'message_created', at, link: `/admin#delivery/${id}` });
const down = (connector = 'desk'): Condition => ({ kind: 'connector_down', connector, reason: 'it reports itself unhealthy' });
const brief = (alerts: ReturnType<AlertGate['step']>) => alerts.map((a) => [a.kind, a.connector, a.state, a.count]);

describe('the alert gate', () => {
  it('sends the first dead letter at once, counts the next ones within `every`, and sends them with their count after it', () => {
    const gate = new AlertGate({ everyMs: EVERY, afterMs: AFTER });
    expect(brief(gate.step(0, { ...none, deadLetters: [dead(1, 0)] }))).toEqual([['delivery_dead', 'desk', 'firing', 1]]);
    expect(gate.step(60_000, { ...none, deadLetters: [dead(2, 60_000), dead(3, 61_000)] })).toEqual([]);
    expect(gate.step(EVERY - 1, none)).toEqual([]);
    const later = gate.step(EVERY, none);
    expect(brief(later)).toEqual([['delivery_dead', 'desk', 'firing', 2]]);
    expect(later[0]!.latest?.id).toBe(3);
    expect(gate.step(EVERY + 1, none)).toEqual([]);
  });

  it('keeps connectors and kinds apart', () => {
    const gate = new AlertGate({ everyMs: EVERY, afterMs: AFTER });
    const both = gate.step(0, { ...none, deadLetters: [dead(1, 0, 'desk'), dead(2, 0, 'mail'), { ...dead(3, 0, 'desk'), kind: 'message_dead' }] });
    expect(brief(both)).toEqual([['delivery_dead', 'desk', 'firing', 1], ['delivery_dead', 'mail', 'firing', 1], ['message_dead', 'desk', 'firing', 1]]);
  });

  it('resolves a fired dead-letter key once it recovered, and a new dead letter after that waits out `every`', () => {
    const gate = new AlertGate({ everyMs: EVERY, afterMs: AFTER });
    gate.step(0, { ...none, deadLetters: [dead(1, 0)] });
    expect(gate.openDeadLetterKeys().map((k) => keyOf(k.kind, k.connector))).toEqual(['delivery_dead|desk']);
    expect(brief(gate.step(1_000, { ...none, recovered: new Set(['delivery_dead|desk']) }))).toEqual([['delivery_dead', 'desk', 'resolved', 0]]);
    expect(gate.openDeadLetterKeys()).toEqual([]);
    expect(gate.step(2_000, { ...none, deadLetters: [dead(4, 2_000)] })).toEqual([]);
    expect(brief(gate.step(EVERY, none))).toEqual([['delivery_dead', 'desk', 'firing', 1]]);
  });

  it('alerts a connector down only after `after`, once, and resolves it when it is up', () => {
    const gate = new AlertGate({ everyMs: EVERY, afterMs: AFTER });
    expect(gate.step(0, { ...none, conditions: [down()] })).toEqual([]);
    expect(gate.step(AFTER - 1, { ...none, conditions: [down()] })).toEqual([]);
    const fired = gate.step(AFTER, { ...none, conditions: [down()] });
    expect(brief(fired)).toEqual([['connector_down', 'desk', 'firing', 1]]);
    expect(fired[0]!.since).toBe(0);
    expect(gate.step(AFTER + 60_000, { ...none, conditions: [down()] })).toEqual([]);
    expect(brief(gate.step(AFTER + 120_000, none))).toEqual([['connector_down', 'desk', 'resolved', 0]]);
    expect(gate.step(AFTER + 180_000, none)).toEqual([]);
  });

  it('tells nothing of a condition that ended before `after`, nor of one that ended while it waited out `every`', () => {
    const gate = new AlertGate({ everyMs: EVERY, afterMs: AFTER });
    gate.step(0, { ...none, conditions: [down()] });
    expect(gate.step(60_000, none)).toEqual([]);
    const token: Condition = { kind: 'platform_auth', connector: '', reason: 'refused' };
    expect(brief(gate.step(100_000, { ...none, conditions: [token] }))).toEqual([['platform_auth', '', 'firing', 1]]);
    expect(brief(gate.step(110_000, none))).toEqual([['platform_auth', '', 'resolved', 0]]);
    expect(gate.step(120_000, { ...none, conditions: [token] })).toEqual([]);
    expect(gate.step(130_000, none)).toEqual([]);
    expect(gate.step(100_000 + EVERY, none)).toEqual([]);
  });

  it('carries on from its state, as another replica taking the watch over does', () => {
    const first = new AlertGate({ everyMs: EVERY, afterMs: AFTER });
    first.step(0, { ...none, deadLetters: [dead(1, 0)] });
    first.step(1_000, { ...none, deadLetters: [dead(2, 1_000)] });
    const second = new AlertGate({ everyMs: EVERY, afterMs: AFTER }, JSON.parse(JSON.stringify(first.state)));
    expect(second.step(2_000, none)).toEqual([]);
    expect(brief(second.step(EVERY, none))).toEqual([['delivery_dead', 'desk', 'firing', 1]]);
  });
});
