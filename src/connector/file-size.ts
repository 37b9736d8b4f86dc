/**
 * A file's size as people read it in a chat line or a note: bytes under
 * 1 KB (`512 B`), whole KB under 1 MB (`24 KB`), MB and GB with one decimal
 * (`1.4 MB`); 1 KB = 1024 B. Shared by the connectors that list files
 * (`[attachment: invoice.pdf, 24 KB] <link>`), so every channel writes sizes
 * alike.
 */
const KB = 1024;
const MB = KB * 1024;
const GB = MB * 1024;

export function formatSize(bytes: number): string {
  if (bytes < KB) return `${bytes} B`;
  const kb = Math.round(bytes / KB);
  if (kb < 1024) return `${kb} KB`;
  if (bytes < GB) return `${(bytes / MB).toFixed(1)} MB`;
  return `${(bytes / GB).toFixed(1)} GB`;
}
