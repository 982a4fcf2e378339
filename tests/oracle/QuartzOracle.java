// Fire-time oracle: reads "expression<TAB>start,start,..." lines (epoch seconds, UTC) on stdin and, for each
// line, prints either "ERR<TAB>message" (Quartz refuses the expression) or "OK" followed by one TAB-separated
// record per start: "n1,n2,...;p1,p2,..." with up to 6 fires after the start and up to 6 fires before it
// (newest first), in epoch seconds.
//
// Quartz 2.3.2 only offers getTimeAfter (getTimeBefore returns null), so the previous fires are derived from
// forward queries alone: g(x) = getTimeAfter(x) is the first fire strictly after x and is monotone in x, so the
// last fire before t is the smallest whole second x with g(x) >= t. It is found by doubling a look-back window
// until g(t - w) < t, then bisecting; each answer is then confirmed by walking forward from just before the
// oldest of them with getTimeAfter, which must reproduce the same fires and then land at or after the start;
// where it does not (getTimeAfter is not monotone for that expression, a Quartz defect), "X" replaces them.
//
// The time spent in the getTimeAfter calls of the "next" chains is measured and printed on stderr as
// "calls=N nanos=T".
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import org.quartz.CronExpression;

public final class QuartzOracle {
    private static final long FLOOR = -1L; // 1969-12-31T23:59:59Z: Quartz has no fire before 1970

    private static long after(CronExpression cron, long second) {
        Date next = cron.getTimeAfter(new Date(second * 1000L));
        return next == null ? Long.MIN_VALUE : next.getTime() / 1000L;
    }

    // The last fire strictly before t, or Long.MIN_VALUE.
    private static long before(CronExpression cron, long t) {
        long width = 1;
        long lo;
        while (true) {
            long probe = Math.max(FLOOR, t - width);
            long g = after(cron, probe);
            if (g != Long.MIN_VALUE && g < t) {
                lo = probe; // g(lo) < t
                break;
            }
            if (probe == FLOOR) {
                return Long.MIN_VALUE;
            }
            width *= 2;
        }
        long hi = t - 1; // g(t - 1) >= t or none
        // invariant: g(lo) < t, g(hi) >= t (or null)
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            long g = after(cron, mid);
            if (g != Long.MIN_VALUE && g < t) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    private static final long TIMEOUT_MILLIS = 3_000;

    @SuppressWarnings({"deprecation", "removal"})
    private static void stopThread(Thread thread) {
        thread.stop();
    }

    private static final class Worker extends Thread {
        private final CronExpression cron;
        private final String[] starts;
        volatile long calls;
        volatile long nanos;
        final StringBuilder result = new StringBuilder("OK");

        Worker(CronExpression cron, String[] starts) {
            this.cron = cron;
            this.starts = starts;
        }

        @Override
        public void run() {
            StringBuilder sb = result;
            long calls = 0;
            long nanos = 0;
            try {
                for (String s : starts) {
                    long start = Long.parseLong(s);
                    List<Long> next = new ArrayList<>();
                    long at = start;
                    long t0 = System.nanoTime();
                    for (int i = 0; i < 6; i++) {
                        Date d = cron.getTimeAfter(new Date(at * 1000L));
                        calls++;
                        if (d == null) {
                            break;
                        }
                        at = d.getTime() / 1000L;
                        next.add(at);
                    }
                    nanos += System.nanoTime() - t0;
                    List<Long> prev = new ArrayList<>();
                    long t = start;
                    for (int i = 0; i < 6; i++) {
                        long p = before(cron, t);
                        if (p == Long.MIN_VALUE) {
                            break;
                        }
                        prev.add(p);
                        t = p;
                    }
                    boolean consistent = true;
                    if (!prev.isEmpty()) {
                        long walk = prev.get(prev.size() - 1) - 1;
                        for (int i = prev.size() - 1; i >= 0 && consistent; i--) {
                            walk = after(cron, walk);
                            consistent = walk == prev.get(i);
                        }
                        long landing = after(cron, walk);
                        consistent = consistent && (landing == Long.MIN_VALUE || landing >= start);
                    }
                    sb.append('\t');
                    for (int i = 0; i < next.size(); i++) {
                        sb.append(i == 0 ? "" : ",").append(next.get(i));
                    }
                    sb.append(';');
                    if (!consistent) {
                        // getTimeAfter is not monotone here (a Quartz defect): there is no "previous" to give.
                        sb.append('X');
                        continue;
                    }
                    for (int i = 0; i < prev.size(); i++) {
                        sb.append(i == 0 ? "" : ",").append(prev.get(i));
                    }
                }
            } catch (RuntimeException e) {
                // Quartz throws from getTimeAfter on some expressions it accepted.
                result.setLength(0);
                result.append("THROW\t").append(String.valueOf(e).replace('\t', ' ').replace('\n', ' '));
            }
            this.calls = calls;
            this.nanos = nanos;
        }
    }

    public static void main(String[] args) throws Exception {
        TimeZone utc = TimeZone.getTimeZone("UTC");
        TimeZone.setDefault(utc);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        long calls = 0;
        long nanos = 0;
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.lastIndexOf('\t');
            String expression = line.substring(0, tab);
            String[] starts = line.substring(tab + 1).split(",");
            CronExpression cron;
            try {
                cron = new CronExpression(expression);
                cron.setTimeZone(utc);
            } catch (Exception e) {
                out.write("ERR\t" + String.valueOf(e.getMessage()).replace('\t', ' ').replace('\n', ' '));
                out.newLine();
                continue;
            }
            Worker worker = new Worker(cron, starts);
            worker.setDaemon(true);
            worker.start();
            worker.join(TIMEOUT_MILLIS);
            if (worker.isAlive()) {
                // getTimeAfter loops without end on some expressions (a Quartz defect); say so and move on.
                stopThread(worker);
                out.write("HANG");
                out.newLine();
                continue;
            }
            calls += worker.calls;
            nanos += worker.nanos;
            out.write(worker.result.toString());
            out.newLine();
        }
        out.flush();
        System.err.println("calls=" + calls + " nanos=" + nanos);
    }
}
