/** Clock — the only source of "now" for services and loops; domain code receives `now` as an argument. */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

/** FakeClock — a clock tests move by hand: `clock.advance(31_000)`. */
export class FakeClock implements Clock {
  private t: number;
  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(at: Date | string): void {
    this.t = new Date(at).getTime();
  }
}
