package io.slurmlet.ctl;

import io.slurmlet.model.text.Text;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Columns aligned with two spaces, as kubectl and scontrol print them; the last column is not padded. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();

    /** A table whose first row is {@code headers}; none for a table without a header. */
    Table(String... headers) {
        if (headers.length > 0) {
            rows.add(headers);
        }
    }

    /** A row; each cell shown as one line a terminal prints as it is ({@link io.slurmlet.model.text.Text#oneLine}). */
    Table row(String... cells) {
        String[] shown = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            shown[i] = cells[i] == null ? "" : Text.oneLine(cells[i]);
        }
        rows.add(shown);
        return this;
    }

    /** Whether the table has no row (a header counts as one). */
    boolean isEmpty() {
        return rows.isEmpty();
    }

    /** What a table shows for an empty value. */
    static String shown(String value) {
        return value.isEmpty() ? "(empty)" : value;
    }

    void print(PrintWriter out) {
        int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(row[i]);
                if (i < row.length - 1) {
                    line.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }
}
