/** matchesBinding — AMQP topic matching: `*` is exactly one word, `#` zero or more words. */
export function matchesBinding(binding: string, routingKey: string): boolean {
  const b = binding.split('.');
  const k = routingKey.split('.');
  const go = (i: number, j: number): boolean => {
    if (i === b.length) return j === k.length;
    if (b[i] === '#') {
      for (let x = j; x <= k.length; x++) if (go(i + 1, x)) return true;
      return false;
    }
    if (j === k.length) return false;
    return (b[i] === '*' || b[i] === k[j]) && go(i + 1, j + 1);
  };
  return go(0, 0);
}
