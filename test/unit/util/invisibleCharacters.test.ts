import { revealInvisible } from '../../../src/util/invisibleCharacters';

describe('revealInvisible', () => {
  test('a right-to-left override (Trojan Source) is written out, so the text reads in its real order', () => {
    // Shown without the reveal, this reads as: echo safe # ;)"txt.selif"(evomer
    const code = 'echo safe # \u202E;)"txt.selif"(evomer';
    expect(revealInvisible(code)).toEqual({ text: 'echo safe # ⟦U+202E⟧;)"txt.selif"(evomer', found: true });
  });

  test.each([
    ['\u200B', 'U+200B'],
    ['\u2066', 'U+2066'],
    ['\u2069', 'U+2069'],
    ['\uFEFF', 'U+FEFF'],
    ['\u061C', 'U+061C'],
    ['\u200F', 'U+200F'],
  ])('%j is revealed as %s', (c, name) => {
    expect(revealInvisible(`a${c}b`)).toEqual({ text: `a⟦${name}⟧b`, found: true });
  });

  test('ordinary text, tabs, newlines and non-Latin letters stay as they are', () => {
    const text = 'print("héllo, 世界, مرحبا")\n\tx = 1\r\n';
    expect(revealInvisible(text)).toEqual({ text, found: false });
  });
});
