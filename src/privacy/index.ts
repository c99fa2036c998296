/** The face of privacy: who read a customer's data (the access log) and the customer data export (docs/privacy.md). */
export { AccessLogEntry } from './access-log/access-log-entry.entity';
export { AccessLogBuffer } from './access-log/access-log-buffer';
export { sweepAccessLog } from './access-log/access-log-retention';
export { AccessLogResolver } from './access-log/access-log.resolver';
export { customerDataExport } from './export/customer-export';
export { CustomerExportResolver } from './export/customer-export.resolver';
