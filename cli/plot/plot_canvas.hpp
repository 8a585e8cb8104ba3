// One drawing, written as PNG, SVG or PDF by the output's extension, and
// what every picture of `rankmap plot` shares: a log colour scale with its
// bar, and text. PNG and PDF are drawn by cairo; SVG is written here, so
// that its text stays text (searchable, checkable by a test) and every
// mark can carry a <title> shown on hover, which cairo's SVG cannot do.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rankmap::cli {

struct Colour {
  double r = 0, g = 0, b = 0;
};

class Canvas {
 public:
  // `format`: "png", "svg" or "pdf"; size in pixels (points for SVG, PDF).
  Canvas(const std::string& format, int width, int height);
  ~Canvas();
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;
  // The finished file's bytes.
  std::string finish();

  // `align`: 0 left, 0.5 centred, 1 right of x; `vertical`: read bottom up.
  void text(double x, double y, const std::string& s, double size = 11, double align = 0, bool vertical = false);
  // `title`: shown on hover in SVG (ignored in PNG and PDF); `mark`: an SVG
  // class naming what the shape is ("hottest", "link", "cell"), for tests.
  void rectangle(double x, double y, double w, double h, Colour c, const std::string& title = "",
                 const std::string& mark = "");
  void line(double x1, double y1, double x2, double y2, double width, Colour c, const std::string& title = "",
            const std::string& mark = "");
  void circle(double cx, double cy, double radius, Colour c, bool filled, double width = 1,
              const std::string& title = "", const std::string& mark = "");

 private:
  std::string format_, bytes_;
  cairo_surface_t* surface_ = nullptr;
  cairo_t* cr_ = nullptr;
  std::string svg_;  // the SVG's elements so far
};

// Values from `low` to `high` as a colour of a viridis-like ramp, dark
// (few) to yellow (most): on a log scale (both > 0), or a linear one.
struct ColourScale {
  double low = 1, high = 1;
  bool log = true;
  Colour colour(double value) const;
  // The colour bar: a vertical ramp at (x, y) with at least 4 labelled
  // ticks where the range allows (log: powers of ten, then 2 and 5 times
  // them, then even steps; linear: whole steps), each labelled by `label`.
  // Returns the ticks' labels, for --json.
  std::vector<std::string> draw_bar(Canvas& canvas, double x, double y, double height, const std::string& title,
                                    const std::function<std::string(double)>& label) const;
  std::vector<double> ticks() const;
  double fraction(double value) const;  // where on the ramp, 0 to 1
};

// The output's format from its extension, or Error naming it.
std::string picture_format(const std::string& path);

}  // namespace rankmap::cli
