import type { ReactNode } from 'react';

// No favicon request (a 404 in the console).
export const metadata = { title: 'hitl-elements: Next.js example', icons: { icon: 'data:,' } };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
