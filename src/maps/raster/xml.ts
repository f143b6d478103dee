/** Text and attribute values written into XML documents (WMTS capabilities, OWS exception reports). */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** The text escaped for element content and for attribute values in either quote. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}
