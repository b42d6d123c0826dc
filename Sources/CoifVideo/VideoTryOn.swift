// VideoTryOn: a try-on of a clip, frame after frame, as stages with state on their own threads joined by
// bounded queues: decode (ffmpeg, ahead) → analyse (the face followed, its pose filtered, the own hair parsed
// on keyframes and carried between them, the plate) → render (the engine's scene, layers and composite, on
// the GL thread) → encode (ffmpeg, behind). A clip's throughput is its slowest stage's, not the sum.
//
// What a shot holds steady: the head's size and lens (HeadSizing, averaged over its keyframes), the level
// of detail and the style's slide to the hairline (both from its first frame), and the background
// behind the removed hair (VideoBackgroundPlate). A shot ends when the face is lost past the hold.
//
// A segment (`frames`) decodes the clip from its start (cheap) and analyses from `warmUpSeconds` before its
// first frame, rounded down to a detection frame, so its filter, keyframes and size have settled the way the
// whole clip's have; it writes no audio (the join adds the clip's).
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import Logging

public final class VideoTryOn: @unchecked Sendable {
    let engine: TryOnEngine
    let logger: Logger

    public init(engine: TryOnEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    /// A frame between the analysis and the render: its analysed face with plate (nil: passed through), the
    /// shot it belongs to, and whether it is rendered (false: a segment's warm-up).
    struct AnalysedFrame {
        var frame: Frame
        var state: TrackState
        var keyframe: Bool
        var analyses: [PhotoAnalysis]?
        var shot: Int
        var renders: Bool
        var timing: FrameTiming
        var rawPose: HeadPose? = nil
        var rawHairlinePx: Vec2? = nil
        var hairlinePx: Vec2? = nil
    }

    struct RenderedFrame {
        var image: PixelImage
        var record: VideoFrameRecord
    }

    /// Renders the clip; returns the records of the rendered frames. Output is whole or absent.
    public func run(_ options: VideoTryOnOptions, cancel: VideoCancel = VideoCancel(),
                    progress: @escaping @Sendable (VideoProgress) -> Void = { _ in }) throws -> VideoSummary {
        let start = monotonicMs()
        let style = try engine.style(named: options.style)
        // The style as asked (a catalog name or a groom file's path), so the job resolves it as a still's does.
        var job = TryOnJob(input: .frame(Frame(image: PixelImage(width: 1, height: 1, channels: 3, pixels: [0, 0, 0]), source: options.input)),
                           style: options.style, look: HairLook(color: options.color))
        try options.settings.apply(to: &job)
        guard job.face != .all else {
            throw CoifError.invalidOption(name: "--face", reason: "a clip follows one face: 'largest' or an index, not 'all'")
        }
        try options.check()
        // The still's own checks of the render's settings (field of view, detail, strands, face, the style).
        _ = try job.validate(styles: engine.styles)
        let reader = try VideoReader(path: options.input)
        let info = reader.info
        var range = options.frames ?? 0...Int.max
        if let frames = options.frames {
            guard frames.lowerBound >= 0 else { throw CoifError.invalidOption(name: "--frames", reason: "frames count from 0") }
            if let count = info.frameCount {
                guard frames.lowerBound < count else {
                    throw CoifError.invalidOption(name: "--frames", reason: "starts at frame \(frames.lowerBound), past the clip's \(count) frames")
                }
                range = frames.lowerBound...min(frames.upperBound, count - 1)
            }
        }
        let total = info.frameCount.map { min($0 - 1, range.upperBound) - range.lowerBound + 1 }
        let warmFrames = options.frames == nil ? 0 : Int((options.warmUpSeconds * info.framesPerSecond).rounded(.up))
        var warmStart = max(0, range.lowerBound - warmFrames)
        if options.tracking.redetectEvery > 0 { warmStart -= warmStart % options.tracking.redetectEvery }
        // Timing files are checked before the first frame, not found unwritable after the last.
        for path in [options.timingPath, options.summaryPath].compactMap({ $0 }) { try AtomicFile.checkWritable(path) }
        let writer = try VideoWriter(path: options.output, width: info.width, height: info.height, frameRate: info.frameRate,
                                     audioFrom: options.frames == nil && info.hasAudio ? options.input : nil, crf: options.crf)
        // A signal ends both ffmpeg processes (the reader's log removed with it) and the writer's temporary, from
        // the signal's thread while the pipeline's threads still read and write: nothing they use is closed
        // under them (a FileHandle closed during another thread's read or write is a fatal error: exit by
        // SIGILL instead of 130, once in a fresh clone's test run).
        cancel.set { writer.abandon(); reader.abandon() }
        defer { cancel.set(nil) }
        engine.holdsRenderTarget = true
        let parser = job.removesOwnHair ? try engine.faceParser() : nil
        let analysis = VideoFrameAnalysis(engine: engine, parser: parser, job: job, options: options)

        // decode → analyse → (this thread) render → encode.
        let decoded = BoundedQueue<Frame>(capacity: 4), analysed = BoundedQueue<AnalysedFrame>(capacity: 3)
        let rendered = BoundedQueue<RenderedFrame>(capacity: 4)
        let source = HandedOver(reader), sink = HandedOver(writer)
        let first = range.lowerBound, last = range.upperBound, warmFrom = warmStart
        let decodeWork = BackgroundWork(name: "coif.video-decode") {
            let reader = source.value
            do {
                while let frame = try reader.next() {
                    let index = frame.index ?? 0
                    if index > last { break }
                    if index < warmFrom { continue }
                    guard decoded.put(frame) else { break }
                }
                reader.close()
                decoded.close()
            } catch {
                reader.close()
                decoded.close(throwing: error)
            }
        }
        let analyseWork = BackgroundWork(name: "coif.video-analyse") { [analysis] in
            do {
                while let frame = try decoded.take() {
                    var timing = FrameTiming()
                    let renders = (frame.index ?? 0) >= first
                    let out = try analysis.analyse(frame, renders: renders, timing: &timing)
                    guard analysed.put(out) else { break }
                }
                analysed.close()
            } catch {
                decoded.cancel()
                analysed.close(throwing: error)
            }
        }
        let encodeWork = BackgroundWork(name: "coif.video-encode") { () -> [VideoFrameRecord] in
            var records: [VideoFrameRecord] = []
            let encodeStart = monotonicMs()
            do {
                while let item = try rendered.take() {
                    var record = item.record
                    try record.timing.measure(.encode) { try sink.value.append(item.image) }
                    records.append(record)
                    let seconds = (monotonicMs() - encodeStart) / 1000
                    progress(VideoProgress(framesDone: records.count, framesTotal: total,
                                           framesPerSecond: seconds > 0 ? Double(records.count) / seconds : 0))
                }
            } catch {
                rendered.cancel()
                throw error
            }
            return records
        }
        var failure: Error?
        let render = RenderStage(engine: engine, style: style, job: job)
        var change = VideoFillChange()
        do {
            while let item = try analysed.take() {
                // The shot opens at its first frame, warm-up or not, so a segment draws the strands the whole
                // clip draws.
                if let first = item.analyses { try render.open(shot: item.shot, first: first) }
                guard item.renders else { continue }
                var timing = item.timing
                var image = item.frame.image
                var record = VideoFrameRecord(index: item.frame.index ?? 0, timestamp: item.frame.timestamp ?? 0, state: item.state,
                                              keyframe: item.keyframe, timing: timing, rawPose: item.rawPose,
                                              pose: item.analyses?.first?.pose, rawHairlinePx: item.rawHairlinePx, hairlinePx: item.hairlinePx,
                                              faceWidthPx: item.analyses?.first?.faceWidthPx)
                if let analyses = item.analyses {
                    let result = try render.process(analyses, shot: item.shot, timing: &timing)
                    let images = result.images
                    image = images.composite
                    (record.fillChange, record.backgroundChange) = change.next(input: item.frame.image, output: image, analysis: analyses[0],
                                                                               removal: analyses[0].removal, newHair: images.matte, shot: item.shot)
                    record.hairLevel = VideoFillChange.meanLevel(image, where: images.matte)
                } else {
                    change.reset()
                }
                record.timing = timing
                guard rendered.put(RenderedFrame(image: image, record: record)) else { break }
            }
        } catch { failure = error }
        // The stages before stop too, whichever way this loop ended (a failure here, or the encoder's, which
        // refuses further frames): one blocked putting into a full queue would otherwise never be joined.
        analysed.cancel()
        decoded.cancel()
        rendered.close(throwing: failure)
        _ = try? decodeWork.wait()
        _ = try? analyseWork.wait()
        let records: [VideoFrameRecord]
        // The MP4 is staged with the timing and summary and renamed in only when all are written.
        var files = AtomicFile.Batch()
        do {
            records = try encodeWork.wait()
            if let failure { throw failure }
            guard !records.isEmpty else {
                throw CoifError.invalidOption(name: options.input, reason: "no frame decodes in frames \(range.lowerBound)-\(range.upperBound)")
            }
            try writer.finish(staging: &files)
        } catch {
            writer.cancel()
            throw error
        }
        let summary = VideoSummary(records: records, renderer: engine.rendererDescription, wallSeconds: (monotonicMs() - start) / 1000,
                                   backgroundResets: analysis.background.resets, clipFramesPerSecond: info.framesPerSecond)
        if let path = options.timingPath { try files.stage(text: VideoSummary.csv(records), to: path) }
        if let path = options.summaryPath { try files.stage(text: summary.json(), to: path) }
        try files.commit()
        return summary
    }
}
