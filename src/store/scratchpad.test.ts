import { describe, expect, it } from 'vitest';
import { storageBackend } from './persist';
import { persistScratchpad, scratchpad, scratchpadFile, setScratchContext, setScratchExpression } from './scratchpad';

const memory = () => {
  const items = new Map<string, string>();
  return { items, getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
};

describe('scratchpad persistence', () => {
  it('saved after a change and restored on the next load (a reload loses nothing)', async () => {
    const db = memory();
    const stop = await persistScratchpad(storageBackend(db, 'scratchpad'));
    setScratchContext('map-jsonPatch');
    setScratchExpression('[JSONPatch{op: "test", path: "/a", value: 1}]');
    stop();
    await Promise.resolve();
    const saved = scratchpadFile();
    setScratchExpression('something else');
    (await persistScratchpad(storageBackend(db, 'scratchpad')))();
    expect(scratchpadFile()).toEqual(saved);
    expect(scratchpad.getState().context).toBe('map-jsonPatch');
  });

  it('an unreadable save leaves the scratchpad as it is', async () => {
    const db = memory();
    db.setItem('scratchpad', '{not json');
    setScratchExpression('kept');
    (await persistScratchpad(storageBackend(db, 'scratchpad')))();
    expect(scratchpad.getState().expression).toBe('kept');
  });
});
