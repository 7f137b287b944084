package dev.uringactors.bench.figures;

import java.math.BigDecimal;
import java.util.List;

/**
 * One figure of one run, as the bench records it and the plot reads it: a CSV line. {@code param} names what
 * {@code x} is (queue depth, connections, file size in KiB): the setting a workload's runs may vary.
 */
record Figure(String date, String machine, String workload, String run, String series, String param, double x,
              String metric, double value) {
    static final String HEADER = "date,machine,workload,run,series,param,x,metric,value";

    /** What a chart draws, and the name of its file: one workload on one machine on one day. */
    String recording() {
        return recording(workload, machine, date);
    }

    static String recording(String workload, String machine, String date) {
        return workload + "_" + machine + "_" + date;
    }

    String toCsv() {
        return CsvLine.join(List.of(date, machine, workload, run, series, param, plain(x), metric, plain(value)));
    }

    /** A number as it was given: 64, not 64.0; 121859.5 as it is. */
    static String plain(double v) {
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    static Figure parse(String line) {
        List<String> f = CsvLine.split(line);
        if (f.size() != 9) {
            throw new IllegalArgumentException("expected the 9 fields of " + HEADER + ", got: " + line);
        }
        return new Figure(f.get(0), f.get(1), f.get(2), f.get(3), f.get(4), f.get(5), Double.parseDouble(f.get(6)),
                f.get(7), Double.parseDouble(f.get(8)));
    }
}
