// QR codes of short URLs, as SVG (for the page) and PNG (to download), made by qrcode.
// The library is loaded on first use: start-up should not pay for what few requests need.

const OPTIONS = { errorCorrectionLevel: 'M', margin: 2 } as const;

let library: Promise<typeof import('qrcode')> | undefined;
const qrcode = () => {
  library ??= import('qrcode');
  return library;
};

export interface QrFormat {
  name: string;
  type: string;
  description: string;
  render(text: string): Promise<string | Buffer>;
}

export const QR = {
  svg: {
    name: 'SVG',
    type: 'image/svg+xml',
    description: 'The QR code of the short URL.',
    render: async (text) => (await qrcode()).toString(text, { ...OPTIONS, type: 'svg' }),
  },
  png: {
    name: 'PNG, 512 px',
    type: 'image/png',
    description: 'The QR code of the short URL, 512 px wide.',
    render: async (text) =>
      (await qrcode()).toBuffer(text, { ...OPTIONS, type: 'png', width: 512 }),
  },
} satisfies Record<string, QrFormat>;
