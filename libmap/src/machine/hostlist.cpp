#include "rankmap/hostlist.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>

#include "rankmap/error.hpp"

namespace rankmap {
namespace {

// One bracket's values, already formatted with their padding.
std::vector<std::string> expand_bracket(std::string_view body, const std::string& source, std::size_t line,
                                        std::string_view whole, std::size_t most) {
  std::vector<std::string> out;
  auto fail = [&](const std::string& what) -> void {
    throw Error(source, line, "bad hostlist '" + std::string(whole) + "': " + what);
  };
  if (body.empty()) fail("empty brackets");
  std::size_t pos = 0;
  while (pos <= body.size()) {
    const std::size_t comma = body.find(',', pos);
    const std::string_view item =
        body.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (item.empty()) fail("empty range in brackets");
    const std::size_t dash = item.find('-');
    const std::string_view lo_text = item.substr(0, dash);
    const std::string_view hi_text = dash == std::string_view::npos ? lo_text : item.substr(dash + 1);
    std::uint64_t lo = 0, hi = 0;
    auto parse = [&](std::string_view t, std::uint64_t& v) {
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (t.empty() || ec != std::errc() || p != t.data() + t.size())
        fail("expected a number or a range like 01-04, got '" + std::string(item) + "'");
    };
    parse(lo_text, lo);
    parse(hi_text, hi);
    if (hi < lo) fail("range '" + std::string(item) + "' runs backwards");
    if (out.size() >= most || hi - lo >= most - out.size())
      fail("range '" + std::string(item) + "' is too large (more than " + std::to_string(most) + " hosts)");
    const std::size_t width = lo_text.size();
    for (std::uint64_t k = 0; k <= hi - lo; ++k) {  // counted: hi may be 2^64 - 1
      std::string digits = std::to_string(lo + k);
      if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
      out.push_back(std::move(digits));
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

// One top-level item such as "r[1-2]n[01-04]".
void expand_item(std::string_view item, const std::string& source, std::size_t line, std::size_t most,
                 std::vector<std::string>& out, std::size_t& out_bytes) {
  std::vector<std::string> partial{""};
  std::size_t partial_bytes = 0;  // of the names in `partial`
  auto check_bytes = [&] {
    if (out_bytes + partial_bytes > kMaxHostlistBytes)
      throw Error(source, line,
                  "bad hostlist '" + std::string(item) + "': more than " + std::to_string(kMaxHostlistBytes >> 20) +
                      " MiB of host names");
  };
  std::size_t pos = 0;
  while (pos < item.size()) {
    const std::size_t open = item.find('[', pos);
    const std::string_view text = item.substr(pos, open - pos);
    if (text.find(']') != std::string_view::npos)
      throw Error(source, line, "bad hostlist '" + std::string(item) + "': unmatched ']'");
    for (auto& p : partial) p += text;
    partial_bytes += partial.size() * text.size();
    check_bytes();
    if (open == std::string_view::npos) break;
    const std::size_t close = item.find(']', open);
    if (close == std::string_view::npos)
      throw Error(source, line, "bad hostlist '" + std::string(item) + "': missing ']'");
    const std::string_view body = item.substr(open + 1, close - open - 1);
    if (body.find('[') != std::string_view::npos)
      throw Error(source, line, "bad hostlist '" + std::string(item) + "': nested '['");
    const auto values = expand_bracket(body, source, line, item, most);
    if (partial.size() * values.size() + out.size() > most)
      throw Error(source, line,
                  "bad hostlist '" + std::string(item) + "': more than " + std::to_string(most) + " hosts");
    // Each name of `partial` once for every value and each value once for
    // every name (both counts at most 10^7 here: no overflow), checked
    // before the names are made.
    std::size_t values_bytes = 0;
    for (const auto& v : values) values_bytes += v.size();
    partial_bytes = partial_bytes * values.size() + values_bytes * partial.size();
    check_bytes();
    std::vector<std::string> next;
    next.reserve(partial.size() * values.size());
    for (const auto& p : partial)
      for (const auto& v : values) next.push_back(p + v);
    partial = std::move(next);
    pos = close + 1;
  }
  out_bytes += partial_bytes;
  for (auto& p : partial) out.push_back(std::move(p));
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view list, const std::string& source, std::size_t line,
                                         std::size_t most) {
  most = std::min(most, kMaxHostlistHosts);
  std::vector<std::string> hosts;
  std::size_t bytes = 0;  // of the names in `hosts`
  int depth = 0;
  std::size_t start = 0;
  auto flush = [&](std::size_t end) {
    std::string_view item = list.substr(start, end - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty()) throw Error(source, line, "bad hostlist '" + std::string(list) + "': empty host name");
    if (item.find_first_of(" \t") != std::string_view::npos)
      throw Error(source, line,
                  "bad hostlist '" + std::string(list) + "': space inside host name '" + std::string(item) + "'");
    expand_item(item, source, line, most, hosts, bytes);
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '[') ++depth;
    if (list[i] == ']') --depth;
    if (list[i] == ',' && depth == 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(list.size());
  return hosts;
}

namespace {

// Splits "node007" into ("node", "007"); no trailing digits gives ("x", "").
std::pair<std::string_view, std::string_view> split_number(std::string_view host) {
  std::size_t i = host.size();
  while (i > 0 && host[i - 1] >= '0' && host[i - 1] <= '9') --i;
  return {host.substr(0, i), host.substr(i)};
}

}  // namespace

std::string compress_hostlist(const std::vector<std::string>& hosts) {
  std::string out;
  std::size_t i = 0;
  while (i < hosts.size()) {
    const auto [prefix, digits] = split_number(hosts[i]);
    if (!out.empty()) out += ',';
    if (digits.empty()) {
      out += hosts[i++];
      continue;
    }
    // Extend a run of consecutive numbers with the same prefix and width,
    // then keep adding runs to the same bracket. Numbers without leading
    // zeros may grow a digit inside a run (h[1-16] is h1..h16), as the
    // expansion pads a range only to its first number's width.
    auto unpadded = [](std::string_view d) { return d.size() == 1 || d[0] != '0'; };
    const std::string_view first_digits = digits;  // a structured binding cannot be captured (clang 14)
    // A number too long for 64 bits (a host name may end in 20 digits) is
    // no run's member: its host is written as it is.
    auto value = [](std::string_view d) {
      std::uint64_t v = 0;
      const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
      return ec == std::errc() && end == d.data() + d.size() ? std::optional<std::uint64_t>(v) : std::nullopt;
    };
    auto fits = [&](std::string_view d) {
      return !d.empty() && value(d) && (d.size() == first_digits.size() || (unpadded(d) && unpadded(first_digits)));
    };
    if (!value(digits)) {
      out += hosts[i++];
      continue;
    }
    std::string bracket;
    std::size_t runs = 0;
    std::size_t j = i;
    while (j < hosts.size()) {
      const auto [p, d] = split_number(hosts[j]);
      if (p != prefix || !fits(d)) break;
      const std::uint64_t first = *value(d);
      std::size_t k = j + 1;
      std::uint64_t last = first;
      while (k < hosts.size()) {
        const auto [p2, d2] = split_number(hosts[k]);
        const bool same_width = d2.size() == d.size();
        if (p2 != prefix || d2.empty() || !(same_width || (unpadded(d) && unpadded(d2))) || value(d2) != last + 1)
          break;
        ++last;
        ++k;
      }
      if (runs++) bracket += ',';
      bracket += std::string(split_number(hosts[j]).second);
      if (k - j > 1) bracket += "-" + std::string(split_number(hosts[k - 1]).second);
      j = k;
    }
    out += std::string(prefix);
    if (runs == 1 && j - i == 1)
      out += std::string(digits);
    else
      out += "[" + bracket + "]";
    i = j;
  }
  return out;
}

}  // namespace rankmap
