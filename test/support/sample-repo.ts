import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A small but real multi-language repository, written fresh into `root`. */
export async function writeSampleRepo(root: string): Promise<void> {
  const files: Record<string, string | Uint8Array> = {
    '.gitignore': 'dist/\n*.log\nsecrets/\n!important.log\n',
    'README.md':
      '# Billing service\n\nHandles invoices and payments.\n\n## Setup\n\nRun `npm install` then `npm start`.\n\n## Refunds\n\nRefunds are issued through the payment gateway within five days.\n',
    'src/invoice.ts': [
      "import { formatMoney } from './money.js';",
      '',
      'export interface Invoice {',
      '  id: string;',
      '  totalCents: number;',
      '}',
      '',
      'export class InvoiceRepository {',
      '  private readonly invoices = new Map<string, Invoice>();',
      '',
      '  save(invoice: Invoice): void {',
      '    this.invoices.set(invoice.id, invoice);',
      '  }',
      '',
      '  findById(id: string): Invoice | undefined {',
      '    return this.invoices.get(id);',
      '  }',
      '}',
      '',
      'export function renderInvoiceTotal(invoice: Invoice): string {',
      '  return `Total: ${formatMoney(invoice.totalCents)}`;',
      '}',
      '',
    ].join('\n'),
    'src/money.ts': 'export function formatMoney(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n',
    'src/payments/gateway.py': [
      'import hmac',
      '',
      'class PaymentGateway:',
      '    """Talks to the card processor."""',
      '',
      '    def charge_card(self, card_token, amount_cents):',
      '        return {"status": "charged", "amount": amount_cents}',
      '',
      '    def issue_refund(self, charge_id):',
      '        return {"status": "refunded", "charge": charge_id}',
      '',
      'def verify_webhook_signature(secret, payload, signature):',
      '    expected = hmac.new(secret, payload, "sha256").hexdigest()',
      '    return hmac.compare_digest(expected, signature)',
      '',
    ].join('\n'),
    'src/server.go':
      'package main\n\nimport "net/http"\n\nfunc healthHandler(w http.ResponseWriter, r *http.Request) {\n\tw.WriteHeader(http.StatusOK)\n}\n\nfunc main() {\n\thttp.HandleFunc("/health", healthHandler)\n\thttp.ListenAndServe(":8080", nil)\n}\n',
    'debug.log': 'ignored log line\n',
    'important.log': 'kept because of negation: quarterly reconciliation\n',
    'secrets/key.txt': 'do not index\n',
    'dist/bundle.js': 'console.log("build output")\n',
    'node_modules/left-pad/index.js': 'module.exports = () => {}\n',
    'assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    'data/blob.bin': new Uint8Array([1, 2, 0, 0, 3, 4, 0, 5]),
  };
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}
