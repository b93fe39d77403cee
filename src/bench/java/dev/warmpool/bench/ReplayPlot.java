package dev.warmpool.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The replay's plot: cold starts against idle processor-hours, the fixed keep-alives as a curve, the learned policy as a point. */
final class ReplayPlot {
    private ReplayPlot() {}

    static void draw(Map<String, Replay.Result> results, Path png) throws Exception {
        System.setProperty("java.awt.headless", "true");
        XYSeries fixed = new XYSeries("fixed keep-alive, 1 to 60 min", false);
        XYSeries learned = new XYSeries("learned", false);
        results.forEach((name, r) ->
                (name.equals("learned") ? learned : fixed).add(r.idleProcessorSeconds() / 3600.0, r.coldStarts()));
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(fixed);
        data.addSeries(learned);
        JFreeChart chart = ChartFactory.createXYLineChart(
                "Cold starts against idle warmth, one replayed day",
                "idle processor-hours",
                "cold starts",
                data,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
        renderer.setSeriesLinesVisible(0, true);
        renderer.setSeriesShapesVisible(0, true);
        renderer.setSeriesPaint(0, new Color(0x4c72b0));
        renderer.setSeriesStroke(0, new BasicStroke(2f));
        renderer.setSeriesLinesVisible(1, false);
        renderer.setSeriesShapesVisible(1, true);
        renderer.setSeriesPaint(1, new Color(0xdd5533));
        renderer.setSeriesShape(1, new Ellipse2D.Double(-6, -6, 12, 12));
        plot.setRenderer(renderer);
        if (png.getParent() != null) {
            Files.createDirectories(png.getParent());
        }
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 720, 450);
    }
}
