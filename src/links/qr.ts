// QR codes of short URLs, as SVG (for the page) and PNG (to download), made by qrcode.
// The library is loaded on first use: start-up should not pay for what few requests need.

const OPTIONS = { errorCorrectionLevel: 'M', margin: 2 } as const;

let library: Promise<typeof import('qrcode')> | undefined;
const qrcode = () => {
  library ??= import('qrcode');
  return library;
};

export async function qrSvg(text: string): Promise<string> {
  return (await qrcode()).toString(text, { ...OPTIONS, type: 'svg' });
}

export async function qrPng(text: string): Promise<Buffer> {
  return (await qrcode()).toBuffer(text, { ...OPTIONS, type: 'png', width: 512 });
}
