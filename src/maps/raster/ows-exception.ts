/**
 * OWS exceptions (OGC 06-121r3, section 8; WMTS 1.0.0, table 28): what a WMTS client such as QGIS
 * or OpenLayers expects when a KVP request is wrong, an `<ows:ExceptionReport>` naming the code and
 * the parameter at fault (`locator`). Only the KVP endpoint answers with them; every other route
 * keeps the JSON error body. This module alone turns a code into its HTTP status, as
 * platform/errors.ts does for the JSON errors.
 */

import { escapeXml } from './xml.js';

export type OwsExceptionCode =
  | 'MissingParameterValue'
  | 'InvalidParameterValue'
  | 'TileOutOfRange'
  | 'OperationNotSupported'
  | 'VersionNegotiationFailed';

/** HTTP status of each code, as WMTS 1.0.0 table 28 gives them. */
const STATUS: Record<OwsExceptionCode, 400 | 501> = {
  MissingParameterValue: 400,
  InvalidParameterValue: 400,
  TileOutOfRange: 400,
  OperationNotSupported: 501,
  VersionNegotiationFailed: 400,
};

export const OWS_NAMESPACE = 'http://www.opengis.net/ows/1.1';

export class OwsException extends Error {
  constructor(
    readonly code: OwsExceptionCode,
    /** The parameter at fault, as the standard spells it (`TILEROW`, `FORMAT`, ...). */
    readonly locator: string,
    message: string,
  ) {
    super(message);
  }

  get statusCode(): 400 | 501 {
    return STATUS[this.code];
  }

  /** The exception report document. */
  report(): string {
    return (
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<ows:ExceptionReport xmlns:ows="${OWS_NAMESPACE}" version="1.0.0" xml:lang="en">\n` +
      `  <ows:Exception exceptionCode="${this.code}" locator="${escapeXml(this.locator)}">\n` +
      `    <ows:ExceptionText>${escapeXml(this.message)}</ows:ExceptionText>\n` +
      '  </ows:Exception>\n' +
      '</ows:ExceptionReport>\n'
    );
  }
}
