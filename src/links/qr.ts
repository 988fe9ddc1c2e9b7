// QR codes of short URLs, as SVG (for the page) and PNG (to download), made by qrcode.

import QRCode from 'qrcode';

const OPTIONS = { errorCorrectionLevel: 'M', margin: 2 } as const;

export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { ...OPTIONS, type: 'svg' });
}

export function qrPng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { ...OPTIONS, type: 'png', width: 512 });
}
