import { coexistencePlan } from '../../../src/health/coexistence';

describe("coexistence with Anthropic's extension", () => {
  test('alone, or chosen: everything; chosen theirs: nothing; undecided: server without the terminal variable, and ask', () => {
    expect(coexistencePlan(false, undefined)).toEqual({ runServer: true, provideTerminalPort: true, ask: false });
    expect(coexistencePlan(true, 'this')).toEqual({ runServer: true, provideTerminalPort: true, ask: false });
    expect(coexistencePlan(true, 'anthropic')).toEqual({ runServer: false, provideTerminalPort: false, ask: false });
    expect(coexistencePlan(true, undefined)).toEqual({ runServer: true, provideTerminalPort: false, ask: true });
    // A choice of theirs made while their extension was installed does not switch this one off after it is removed.
    expect(coexistencePlan(false, 'anthropic')).toEqual({ runServer: true, provideTerminalPort: true, ask: false });
  });
});
