/**
 * XmlValue — what the EC2 simulator's responses are built from. An object becomes nested elements in key order,
 * an array becomes EC2's `<name><item>…</item></name>` list shape, a Date an ISO-8601 timestamp, `undefined` is
 * omitted. EC2 element names are lowerCamelCase; the caller spells them.
 */
export type XmlValue = string | number | boolean | Date | undefined | XmlValue[] | { [name: string]: XmlValue };

export const EC2_XML_NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** escapeXml — the five XML special characters as entities. */
export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function render(name: string, value: XmlValue): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) {
    return `<${name}>${value.map((v) => render('item', v)).join('')}</${name}>`;
  }
  if (value instanceof Date) return `<${name}>${value.toISOString()}</${name}>`;
  if (typeof value === 'object') {
    const inner = Object.entries(value)
      .map(([k, v]) => render(k, v))
      .join('');
    return `<${name}>${inner}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** actionResponseXml — `<{Action}Response xmlns=…><requestId/>…</…>`, the success body of every EC2 action. */
export function actionResponseXml(action: string, requestId: string, body: Record<string, XmlValue>): string {
  const inner = render('requestId', requestId) + Object.entries(body).map(([k, v]) => render(k, v)).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${EC2_XML_NAMESPACE}">${inner}</${action}Response>`;
}

/** errorResponseXml — EC2's error envelope, which the SDK's ec2 protocol reads `Code` and `Message` from. */
export function errorResponseXml(code: string, message: string, requestId: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>' +
    `<Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message>` +
    `</Error></Errors><RequestID>${escapeXml(requestId)}</RequestID></Response>`
  );
}
